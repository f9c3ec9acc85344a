import { ErrorCodes, LOGO_MAX_BYTES } from '@postern/protocol';

/** The image types a logo may be (spec §9: PNG, JPG, JPEG), by MIME type and by file-name ending. */
const LOGO_MIME_TYPES: Record<string, 'image/png' | 'image/jpeg'> = {
  'image/png': 'image/png',
  'image/jpeg': 'image/jpeg',
  // Some systems still label JPEG files this way.
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
};
const LOGO_EXTENSIONS: Record<string, 'image/png' | 'image/jpeg'> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
};

/** What the file picker offers (the `accept` attribute): the same types as {@link logoMimeType}. */
export const LOGO_ACCEPT = 'image/png,image/jpeg,.png,.jpg,.jpeg';

/**
 * The logo's image type, or null when the file is not a PNG or JPEG. Both the type the browser
 * reports and the name's ending must agree when both are known, so a renamed file is caught early;
 * the server decodes the image anyway.
 */
export function logoMimeType(file: Pick<File, 'name' | 'type'>): 'image/png' | 'image/jpeg' | null {
  const extension = /\.([a-z0-9]+)$/i.exec(file.name)?.[1]?.toLowerCase();
  const byName = extension === undefined ? undefined : LOGO_EXTENSIONS[extension];
  const byType = file.type === '' ? undefined : LOGO_MIME_TYPES[file.type.toLowerCase()];
  if (file.type !== '' && byType === undefined) return null;
  if (byType !== undefined && byName !== undefined && byType !== byName) return null;
  return byType ?? byName ?? null;
}

/** Why a file cannot be a logo (an `err.` key the error texts translate), or null when it can. */
export function logoFileProblem(file: Pick<File, 'name' | 'type' | 'size'>): string | null {
  if (logoMimeType(file) === null) return ErrorCodes.logoFormat;
  if (file.size > LOGO_MAX_BYTES) return ErrorCodes.logoTooLarge;
  return null;
}

/** Reads a file the browser gave us as a base64 data: URL of the given image type. */
export function readAsDataUrl(file: Blob, mimeType: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onerror = () => reject(reader.error ?? new Error('read failed'));
    reader.onload = () => {
      const result = typeof reader.result === 'string' ? reader.result : '';
      // FileReader labels the data with the file's own type, which may be empty or "image/jpg".
      resolve(`data:${mimeType};base64,${result.slice(result.indexOf(',') + 1)}`);
    };
    reader.readAsDataURL(file);
  });
}

/** Reads a text file (SAML metadata, PEM key or certificate). */
export function readAsText(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onerror = () => reject(reader.error ?? new Error('read failed'));
    reader.onload = () => resolve(typeof reader.result === 'string' ? reader.result : '');
    reader.readAsText(file);
  });
}
