import { deflateSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import pngjs from 'pngjs';
import { reencodeLogo } from './logo-reencode.js';
import { greyscalePng } from '../test-support/images.js';

/** What logo-image.ts hands over for a greyscale PNG of `width` × `height` with this IDAT. */
function pngJob(width: number, height: number, idat: Buffer, interlaced = false) {
  return {
    type: 'image/png' as const,
    bytes: greyscalePng(width, height, idat, interlaced),
    width,
    height,
    idat,
    // As pngHeader computes it: one filter byte and one sample per pixel a row, doubled, plus a little.
    maxInflated: 2 * (width + 1) * height + 1024,
  };
}

describe('the logo worker’s decoding', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('refuses image data that inflates beyond what the size allows, before the decoder runs', () => {
    const decoder = vi.spyOn(pngjs.PNG.sync, 'read');
    // 64 × 64 grey pixels need about 8 KiB; this stream inflates to 64 MiB.
    const bomb = deflateSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });
    expect(reencodeLogo(pngJob(64, 64, bomb, true))).toEqual({ refused: true });
    expect(decoder).not.toHaveBeenCalled();
  });

  it('decodes image data that inflates to exactly the size', () => {
    const rows = deflateSync(Buffer.alloc(64 * 65));
    expect(reencodeLogo(pngJob(64, 64, rows))).toHaveProperty('image');
  });
});
