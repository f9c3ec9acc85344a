import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readSecretLine } from './stdin.js';

/** A non-terminal standard input that will deliver `chunks`, then end (unless told not to). */
function input(chunks: string[], end = true): NodeJS.ReadStream {
  const stream = new PassThrough();
  setImmediate(() => {
    for (const chunk of chunks) stream.write(chunk);
    if (end) stream.end();
  });
  return stream as unknown as NodeJS.ReadStream;
}

describe('reading the key from standard input', () => {
  it('takes the first line of a pipe', async () => {
    expect(await readSecretLine(input(['pst_abc', 'def\nsecond line\n']))).toBe('pst_abcdef');
  });

  it('takes everything up to the end when there is no newline', async () => {
    expect(await readSecretLine(input(['pst_abcdef']))).toBe('pst_abcdef');
  });

  it('stops at the first newline without waiting for the end of the input', async () => {
    expect(await readSecretLine(input(['pst_abcdef\r\n'], false))).toBe('pst_abcdef');
  });

  it('refuses input far too long to be a key', async () => {
    await expect(readSecretLine(input(['x'.repeat(5000)], false))).rejects.toMatchObject({
      message: 'standard input is too long to be an API key',
    });
  });
});
