import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClientError } from './errors.js';
import { ExitCode } from './exit-codes.js';
import { readApiKey, writeKeyFile } from './key-file.js';
import { permissions, tempDir } from './test-support/temp-dir.js';

const KEY = 'pst_Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWpr';

function keyFileWith(content: string, mode: number): string {
  const file = path.join(tempDir(), 'key');
  writeFileSync(file, content, { mode: 0o600 });
  chmodSync(file, mode);
  return file;
}

function refusal(action: () => unknown): ClientError {
  try {
    action();
  } catch (error) {
    if (error instanceof ClientError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('reading the API key', () => {
  it.each([0o600, 0o400])('reads a key file with mode %o, without its newline', (mode) => {
    expect(readApiKey(keyFileWith(`${KEY}\n`, mode), {})).toEqual({
      key: KEY,
      source: expect.stringMatching(/key$/) as string,
    });
  });

  it.each([0o644, 0o640, 0o604, 0o660, 0o610, 0o601])(
    'refuses a key file with mode %o, as ssh refuses such a private key',
    (mode) => {
      const file = keyFileWith(KEY, mode);
      const error = refusal(() => readApiKey(file, {}));

      expect(error.exitCode).toBe(ExitCode.Usage);
      expect(error.message).toContain(`chmod 600 ${file}`);
      expect(error.message).toContain(`0${mode.toString(8)}`);
      expect(error.message).not.toContain(KEY);
    },
  );

  it('takes $POSTERN_CLIENT_KEY before the key file (CI systems hand secrets over so)', () => {
    const file = keyFileWith('pst_the_file_key_is_not_used_here', 0o644);

    expect(readApiKey(file, { POSTERN_CLIENT_KEY: ` ${KEY}\n` })).toEqual({ key: KEY, source: '$POSTERN_CLIENT_KEY' });
  });

  it('says how to provide a key when the key file is missing', () => {
    const error = refusal(() => readApiKey(path.join(tempDir(), 'key'), {}));

    expect(error.message).toMatch(/does not exist.*--key-stdin.*POSTERN_CLIENT_KEY/);
  });

  it.each([
    ['an empty file', '\n', /is empty/],
    ['two words', 'pst_abc def_ghijklmnopqrstuvwxyz', /does not hold an API key/],
    ['something too short', 'pst_short', /does not hold an API key/],
  ])('refuses %s without repeating its content', (_case, content, message) => {
    const error = refusal(() => readApiKey(keyFileWith(content, 0o600), {}));

    expect(error.message).toMatch(message);
    if (content.trim() !== '') expect(error.message).not.toContain(content.trim());
  });
});

describe('writing the key file', () => {
  it('creates it with mode 600 even under a permissive umask', () => {
    const file = path.join(tempDir(), 'key');
    const umask = process.umask(0);
    try {
      writeKeyFile(file, `${KEY}\n`, false);
    } finally {
      process.umask(umask);
    }

    expect(permissions(statSync(file).mode)).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toBe(`${KEY}\n`);
  });

  it('refuses to replace an existing key file unless told to, and then replaces it with mode 600', () => {
    const file = keyFileWith('pst_old_key_old_key_old_key', 0o644);

    expect(refusal(() => writeKeyFile(file, KEY, false)).message).toMatch(/exists already \(--force replaces it\)/);
    expect(readFileSync(file, 'utf8')).toBe('pst_old_key_old_key_old_key');

    writeKeyFile(file, KEY, true);

    expect(readFileSync(file, 'utf8')).toBe(`${KEY}\n`);
    expect(permissions(statSync(file).mode)).toBe(0o600);
  });

  it('refuses input that is not a key', () => {
    expect(refusal(() => writeKeyFile(path.join(tempDir(), 'key'), 'not a key', false)).message).toMatch(
      /standard input does not hold an API key/,
    );
  });
});
