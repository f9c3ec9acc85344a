import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { ConfigError } from '../config/config-error.js';

export const SECRET_KEY_FILE = 'secret.key';

/** The setting that names the key; problems with the key file are reported under it too. */
export const SECRET_KEY_SETTING = 'POSTERN_SECRET_KEY';

/** Where the key file of a data directory lives. */
export function secretKeyFilePath(dataDir: string): string {
  return path.join(dataDir, SECRET_KEY_FILE);
}

/**
 * The key in `file`, or null when there is no such file. A file others can read, or one that does not
 * hold 32 bytes in base64, is a ConfigError: it is never replaced.
 */
export function readSecretKeyFile(file: string): Buffer | null {
  if (!existsSync(file)) return null;
  const mode = statSync(file).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    throw new ConfigError(
      SECRET_KEY_SETTING,
      `${file} has mode ${mode.toString(8)}; it must be 600 (chmod 600 ${file})`,
    );
  }
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new ConfigError(SECRET_KEY_SETTING, `${file} must hold 32 bytes in base64`);
  return key;
}

/**
 * Writes a new key (32 random bytes, mode 0600) to `file`. Only for a store that holds nothing sealed:
 * the caller decides that (see store-secret-key.ts). `wx` so a file that appeared meanwhile is kept.
 */
export function createSecretKeyFile(file: string): Buffer {
  const key = randomBytes(32);
  try {
    writeFileSync(file, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  } catch (error) {
    const existing = isFileExists(error) ? readSecretKeyFile(file) : null;
    if (existing === null) throw error;
    return existing;
  }
  return key;
}

function isFileExists(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'EEXIST';
}
