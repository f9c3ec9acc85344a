import { crc32, deflateSync } from 'node:zlib';
import pngjs from 'pngjs';
import jpeg from 'jpeg-js';

const { PNG } = pngjs;

/** RGBA pixels of a small gradient, so that a re-encoded image can be compared pixel by pixel. */
export function gradient(width: number, height: number, alpha = 255): Buffer {
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const i = (y * width + x) * 4;
      data[i] = (x * 7) & 255;
      data[i + 1] = (y * 13) & 255;
      data[i + 2] = 128;
      data[i + 3] = alpha;
    }
  }
  return data;
}

/** A real PNG of a gradient. */
export function pngBytes(width: number, height: number, alpha = 255): Buffer {
  return PNG.sync.write({ width, height, data: gradient(width, height, alpha) } as pngjs.PNG);
}

/** A real JPEG of a gradient. */
export function jpegBytes(width: number, height: number): Buffer {
  return jpeg.encode({ width, height, data: gradient(width, height) }, 90).data;
}

/**
 * A small real JPEG whose frame header (SOF0, which jpeg-js writes) claims `width` × `height`: a
 * huge image in a few hundred bytes, for tests that refuse it from the header.
 */
export function jpegClaiming(width: number, height: number): Buffer {
  const bytes = jpegBytes(8, 8);
  const frame = bytes.indexOf(Buffer.from('ffc0', 'hex'));
  bytes.writeUInt16BE(height, frame + 5);
  bytes.writeUInt16BE(width, frame + 7);
  return bytes;
}

/** A base64 data: URL of `bytes` declared as `type` (which may be a lie, for tests that refuse it). */
export function dataUrl(type: string, bytes: Buffer): string {
  return `data:${type};base64,${bytes.toString('base64')}`;
}

/** One PNG chunk with its length and CRC. */
function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, crc]);
}

/**
 * A well-formed 8-bit greyscale PNG of `width` × `height` black pixels whose IDAT is `idat` (by
 * default the real compressed rows): with a huge size and a tiny IDAT, or a small size and an IDAT
 * that inflates far beyond it, a decompression bomb.
 */
export function greyscalePng(width: number, height: number, idat?: Buffer, interlaced = false): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // greyscale
  header[12] = interlaced ? 1 : 0; // Adam7
  const rows = idat ?? deflateSync(Buffer.alloc(height * (width + 1)), { level: 9 });
  return Buffer.concat([
    Buffer.from('89504e470d0a1a0a', 'hex'),
    chunk('IHDR', header),
    chunk('IDAT', rows),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The width and height of a PNG or JPEG, decoded. */
export function decodedSize(type: string, bytes: Buffer): { width: number; height: number; data: Uint8Array } {
  if (type === 'image/png') {
    const image = PNG.sync.read(bytes);
    return { width: image.width, height: image.height, data: image.data };
  }
  const image = jpeg.decode(bytes, { useTArray: true });
  return { width: image.width, height: image.height, data: image.data };
}
