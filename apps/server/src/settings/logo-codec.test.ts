import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { LOGO_MAX_PIXELS } from '@postern/protocol';
import { LogoCodec } from './logo-codec.js';
import type { LogoJob } from './logo-reencode.js';
import { decodedSize, jpegBytes } from '../test-support/images.js';

/** A JPEG job as logo-image.ts hands it over after reading the header. */
function jpegJob(width: number, height: number): LogoJob {
  return { type: 'image/jpeg', bytes: jpegBytes(width, height), width, height, maxPixels: LOGO_MAX_PIXELS };
}

/** A decode that takes hundreds of milliseconds: the largest square the pixel budget allows. */
const LARGE = jpegJob(2048, 2048);

// Starting a worker, and decoding the largest images on a busy machine, takes a while.
const SLOW = { timeout: 60_000 };

describe('the logo worker', () => {
  let codec: LogoCodec;
  afterEach(async () => {
    await codec.close();
  });

  it('re-encodes an image in a worker thread started on first use', SLOW, async () => {
    codec = new LogoCodec();
    expect(codec.workersStarted).toBe(0);
    const outcome = await codec.reencode(jpegJob(40, 30));
    if (!('image' in outcome)) throw new Error(`refused: ${outcome.refused}`);
    expect(decodedSize('image/jpeg', Buffer.from(outcome.image))).toMatchObject({ width: 40, height: 30 });
    expect(codec.workersStarted).toBe(1);
  });

  it('lets the process end once the image is decoded, without being closed', SLOW, () => {
    // A process of its own, from source as `npm run dev` runs the server (and with a flag the worker
    // must not inherit): it decodes one image, leaves the codec open and should then simply end.
    const module = (file: string) => JSON.stringify(pathToFileURL(path.join(import.meta.dirname, file)).href);
    const script = [
      `const { LogoCodec } = await import(${module('logo-codec.ts')});`,
      `const { jpegBytes } = await import(${module('../test-support/images.ts')});`,
      'const outcome = await new LogoCodec().reencode(',
      "  { type: 'image/jpeg', bytes: jpegBytes(8, 8), width: 8, height: 8, maxPixels: 64 });",
      "console.log('image' in outcome ? 'decoded' : outcome.refused);",
    ].join('\n');
    const run = spawnSync(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', '--input-type=module', '-e', script],
      // A process the worker kept alive is stopped here, and fails the test.
      { encoding: 'utf8', timeout: 45_000 },
    );
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('decoded\n');
    expect(run.status).toBe(0);
  });

  it('refuses an image whose decoded size is not its header’s', SLOW, async () => {
    codec = new LogoCodec();
    expect(await codec.reencode({ ...jpegJob(40, 30), width: 41 })).toEqual({ refused: 'format' });
  });

  it('refuses a decode over its time limit as too large, and decodes the next in a fresh worker', SLOW, async () => {
    codec = new LogoCodec();
    expect(await codec.reencode(LARGE, { timeLimitMs: 1 })).toEqual({ refused: 'tooLarge' });
    expect(codec.pending).toEqual({ running: 0, waiting: 0 });
    const next = await codec.reencode(jpegJob(16, 16));
    expect(next).toHaveProperty('image');
    expect(codec.workersStarted).toBe(2);
  });

  it('decodes one image at a time, lets a bounded number wait, and refuses more as busy', SLOW, async () => {
    codec = new LogoCodec({ queueLimit: 1 });
    const first = codec.reencode(LARGE);
    const second = codec.reencode(jpegJob(8, 8));
    expect(codec.pending).toEqual({ running: 1, waiting: 1 });
    expect(await codec.reencode(jpegJob(8, 8))).toEqual({ refused: 'busy' });
    expect(await first).toHaveProperty('image');
    expect(await second).toHaveProperty('image');
    expect(codec.workersStarted).toBe(1);
  });

  it('refuses what is waiting or running when it closes, and takes nothing after', SLOW, async () => {
    codec = new LogoCodec();
    const running = codec.reencode(LARGE);
    const waiting = codec.reencode(jpegJob(8, 8));
    await codec.close();
    expect(await running).toEqual({ refused: 'busy' });
    expect(await waiting).toEqual({ refused: 'busy' });
    expect(await codec.reencode(jpegJob(8, 8))).toEqual({ refused: 'busy' });
  });
});
