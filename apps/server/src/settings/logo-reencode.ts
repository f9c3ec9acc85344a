import { inflateSync } from 'node:zlib';
import pngjs from 'pngjs';
import jpeg from 'jpeg-js';

/*
 * The costly half of a logo upload: inflate, decode and encode the image again. It runs in the logo
 * worker (logo-worker.ts, started by logo-codec.ts), never on the server's event loop. The job comes
 * from logo-image.ts, which has already read the header and refused anything too large, so what
 * arrives here is bounded: the size the header claims, within the pixel budget, and (for a PNG) the
 * most its image data may inflate to. This module imports only the codecs, so the worker starts fast.
 */

const { PNG } = pngjs;

/** jpeg-js's own ceiling on what it allocates while decoding. */
const JPEG_MAX_MEMORY_MB = 256;
/** Quality of a re-encoded JPEG: visually lossless for logos, and rarely larger than the upload. */
const JPEG_QUALITY = 90;

/** One image to re-encode, with what logo-image.ts read from its header. */
export type LogoJob =
  | {
      type: 'image/png';
      /** The PNG up to the end of its IEND chunk. */
      bytes: Uint8Array;
      width: number;
      height: number;
      /** The IDAT chunks' data, joined. */
      idat: Uint8Array;
      /** The most bytes the image data may inflate to, from the header's size. */
      maxInflated: number;
    }
  | {
      type: 'image/jpeg';
      bytes: Uint8Array;
      width: number;
      height: number;
      /** The pixel budget (LOGO_MAX_PIXELS), which jpeg-js enforces again. */
      maxPixels: number;
    };

/**
 * The new file, or `refused` when it is no image of the claimed kind and size: a decoder's complaint
 * (a bad CRC, an unknown marker, a truncated stream), image data that inflates beyond what the size
 * allows, or a decoded size other than the header's.
 */
export type LogoJobOutcome = { image: Uint8Array } | { refused: true };

/** Decodes the job's image and encodes a fresh file of the same type from its pixels. */
export function reencodeLogo(job: LogoJob): LogoJobOutcome {
  try {
    const image = job.type === 'image/png' ? reencodePng(job) : reencodeJpeg(job);
    return image === null ? { refused: true } : { image };
  } catch {
    return { refused: true };
  }
}

function reencodePng(job: Extract<LogoJob, { type: 'image/png' }>): Uint8Array | null {
  // pngjs bounds what it inflates only for non-interlaced images: check the stream first, bounded,
  // so that a small file cannot inflate to gigabytes, and a stream that is no zlib is refused.
  if (inflateSync(job.idat, { maxOutputLength: job.maxInflated }).length === 0) throw new Error('no image data');
  const image = PNG.sync.read(Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength));
  if (image.width !== job.width || image.height !== job.height) return null;
  // pngjs hands back 8-bit RGBA whatever the source; keep the alpha channel only when it is used.
  let opaque = true;
  for (let i = 3; i < image.data.length; i += 4) {
    if (image.data[i] !== 255) {
      opaque = false;
      break;
    }
  }
  return PNG.sync.write(image, { colorType: opaque ? 2 : 6, inputColorType: 6, inputHasAlpha: true });
}

function reencodeJpeg(job: Extract<LogoJob, { type: 'image/jpeg' }>): Uint8Array | null {
  const image = jpeg.decode(job.bytes, {
    useTArray: true,
    formatAsRGBA: true,
    tolerantDecoding: false,
    maxResolutionInMP: job.maxPixels / 1e6,
    maxMemoryUsageInMB: JPEG_MAX_MEMORY_MB,
  });
  if (image.width !== job.width || image.height !== job.height) return null;
  return jpeg.encode({ width: image.width, height: image.height, data: image.data }, JPEG_QUALITY).data;
}
