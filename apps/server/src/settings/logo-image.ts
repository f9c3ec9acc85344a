import { ErrorCodes, LOGO_MAX_BYTES, LOGO_MAX_PIXELS, LOGO_MAX_SIDE_PIXELS, type ErrorCode } from '@postern/protocol';
import { BadRequestError, TooManyRequestsError } from '../errors.js';
import { LOGO_DECODE_TIME_LIMIT_MS, type LogoCodec } from './logo-codec.js';
import type { LogoJob } from './logo-reencode.js';

/*
 * Logos are shown to everyone, signed in or not, so what is stored must be an image and nothing
 * else. An upload is decoded and a fresh file encoded from its pixels: whatever rode along (HTML
 * or a script after the image's end, a ZIP appended to a JPEG, metadata chunks, EXIF) is not kept.
 *
 * Here, on the event loop, only the cheap part: the header is read, and an image wider or higher
 * than LOGO_MAX_SIDE_PIXELS, or of more than LOGO_MAX_PIXELS in all, is refused before anything is
 * inflated or handed on (a small file that claims a huge image is a decompression bomb). The decode
 * and the new encoding run in the logo worker (logo-codec.ts, logo-reencode.ts), so that an upload
 * never holds up other requests.
 *
 * The codecs are pngjs and jpeg-js: pure JavaScript (about 0.8 MB, no native code, any Node.js),
 * where sharp would bring 20 MB of per-platform libvips.
 */

const PNG_SIGNATURE = Buffer.from('89504e470d0a1a0a', 'hex');
const JPEG_SOI = Buffer.from('ffd8ff', 'hex');

export type LogoType = 'image/png' | 'image/jpeg';

/** Why an upload is refused, before it becomes an HTTP answer. */
class LogoRefusal extends Error {
  constructor(readonly code: ErrorCode) {
    super(code);
  }
}

/**
 * The logo to store for an uploaded data: URL: the same image type, re-encoded from the decoded
 * pixels by `codec`. Refuses (400, Extra: the field) anything that is not a PNG or JPEG as declared
 * (err.logoFormat), wider or higher than LOGO_MAX_SIDE_PIXELS or of more than LOGO_MAX_PIXELS
 * (err.logoDimensionsTooLarge), larger than LOGO_MAX_BYTES before or after re-encoding, or too much
 * for the worker's time and memory (err.logoTooLarge); 429 when too many uploads are waiting.
 */
export async function sanitiseLogo(codec: LogoCodec, field: string, dataUrl: string): Promise<string> {
  const refuse = (code: ErrorCode) => new BadRequestError({ code, extra: field });
  let job: LogoJob;
  try {
    job = logoJob(dataUrl);
  } catch (error) {
    // A malformed header (a chunk cut short, an unknown colour type) is a bad image.
    throw refuse(error instanceof LogoRefusal ? error.code : ErrorCodes.logoFormat);
  }
  const outcome = await codec.reencode(job);
  if ('image' in outcome) {
    if (outcome.image.length > LOGO_MAX_BYTES) throw refuse(ErrorCodes.logoTooLarge);
    return `data:${job.type};base64,${Buffer.from(outcome.image).toString('base64')}`;
  }
  if (outcome.refused === 'busy')
    throw new TooManyRequestsError({ retryAfterSeconds: LOGO_DECODE_TIME_LIMIT_MS / 1000 });
  throw refuse(outcome.refused === 'tooLarge' ? ErrorCodes.logoTooLarge : ErrorCodes.logoFormat);
}

/** The worker's job for a data: URL, from its header alone; throws LogoRefusal. */
function logoJob(dataUrl: string): LogoJob {
  const match = /^data:(image\/(?:png|jpeg));base64,([A-Za-z0-9+/]+=*)$/.exec(dataUrl);
  if (match === null) throw new LogoRefusal(ErrorCodes.logoFormat);
  const bytes = Buffer.from(match[2] ?? '', 'base64');
  if (bytes.length > LOGO_MAX_BYTES) throw new LogoRefusal(ErrorCodes.logoTooLarge);
  if (match[1] === 'image/png') {
    const { width, height, end, idat, maxInflated } = pngLayout(bytes);
    return { type: 'image/png', bytes: bytes.subarray(0, end), width, height, idat, maxInflated };
  }
  return { type: 'image/jpeg', bytes, ...jpegSize(bytes), maxPixels: LOGO_MAX_PIXELS };
}

/** Width and height must each be 1…LOGO_MAX_SIDE_PIXELS, and their product at most LOGO_MAX_PIXELS. */
function checkDimensions(width: number, height: number): void {
  if (width < 1 || height < 1) throw new LogoRefusal(ErrorCodes.logoFormat);
  if (width > LOGO_MAX_SIDE_PIXELS || height > LOGO_MAX_SIDE_PIXELS || width * height > LOGO_MAX_PIXELS) {
    throw new LogoRefusal(ErrorCodes.logoDimensionsTooLarge);
  }
}

/** Channels per PNG colour type: greyscale, RGB, palette, greyscale + alpha, RGBA. */
const PNG_CHANNELS: Readonly<Record<number, number>> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

/**
 * The PNG's dimensions (from IHDR, which must come first), where its IEND chunk ends, its
 * compressed image data (the IDAT chunks joined), and the most bytes that data may inflate to.
 * Walks the chunks without inflating anything; anything after IEND is not part of the image.
 */
function pngLayout(bytes: Buffer): {
  width: number;
  height: number;
  end: number;
  idat: Buffer;
  maxInflated: number;
} {
  if (bytes.length < 8 || !bytes.subarray(0, 8).equals(PNG_SIGNATURE)) throw new LogoRefusal(ErrorCodes.logoFormat);
  let offset = 8;
  let header: { width: number; height: number; maxInflated: number } | null = null;
  const idat: Buffer[] = [];
  while (offset + 12 <= bytes.length) {
    const length = bytes.readUInt32BE(offset);
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    const next = offset + 12 + length;
    if (!/^[A-Za-z]{4}$/.test(type) || next > bytes.length) break;
    if (header === null) {
      if (type !== 'IHDR' || length !== 13) break;
      header = pngHeader(bytes.subarray(offset + 8, offset + 8 + 13));
    }
    if (type === 'IDAT') idat.push(bytes.subarray(offset + 8, offset + 8 + length));
    if (type === 'IEND') return { ...header, end: next, idat: Buffer.concat(idat) };
    offset = next;
  }
  throw new LogoRefusal(ErrorCodes.logoFormat);
}

/**
 * Size from IHDR (checked at once), and a bound on the inflated image data: one filter byte and the
 * packed samples per row, doubled to cover the seven passes of an interlaced image (whose rows pad
 * to whole bytes and carry their own filter bytes), plus a little.
 */
function pngHeader(ihdr: Buffer): { width: number; height: number; maxInflated: number } {
  const width = ihdr.readUInt32BE(0);
  const height = ihdr.readUInt32BE(4);
  checkDimensions(width, height);
  const depth = ihdr[8] ?? 0;
  const channels = PNG_CHANNELS[ihdr[9] ?? -1];
  if (channels === undefined || ![1, 2, 4, 8, 16].includes(depth)) throw new LogoRefusal(ErrorCodes.logoFormat);
  const rowBytes = Math.ceil((width * channels * depth) / 8) + 1;
  return { width, height, maxInflated: 2 * rowBytes * height + 1024 };
}

/** Markers that start a frame (SOF0–SOF15 but DHT, JPG and DAC): they carry the dimensions. */
const START_OF_FRAME = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

/** The JPEG's dimensions, from its first start-of-frame segment, read without decoding anything. */
function jpegSize(bytes: Buffer): { width: number; height: number } {
  if (bytes.length < 4 || !bytes.subarray(0, 3).equals(JPEG_SOI)) throw new LogoRefusal(ErrorCodes.logoFormat);
  let offset = 2;
  while (offset + 4 <= bytes.length) {
    if (bytes[offset] !== 0xff) break;
    const marker = bytes[offset + 1] ?? 0;
    if (marker === 0xff) {
      // Fill byte before a marker.
      offset += 1;
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      offset += 2;
      continue;
    }
    // The image data or its end before any frame header: not an image we can size.
    if (marker === 0xda || marker === 0xd9) break;
    const length = bytes.readUInt16BE(offset + 2);
    if (length < 2 || offset + 2 + length > bytes.length) break;
    if (START_OF_FRAME.has(marker)) {
      if (length < 7) break;
      const size = { height: bytes.readUInt16BE(offset + 5), width: bytes.readUInt16BE(offset + 7) };
      // A height of 0 defers it to a DNL segment after the scan: refused as an unknown size.
      checkDimensions(size.width, size.height);
      return size;
    }
    offset += 2 + length;
  }
  throw new LogoRefusal(ErrorCodes.logoFormat);
}
