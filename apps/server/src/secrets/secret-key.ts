import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { ConfigError } from '../config/config-error.js';

export const SECRET_KEY_FILE = 'secret.key';

/**
 * The key that seals secrets at rest: POSTERN_SECRET_KEY when set, otherwise a key file in the data
 * directory, created (32 random bytes, mode 0600) on first start. Returns whether it came from the file.
 */
export function loadSecretKey(configured: Buffer | null, dataDir: string): { key: Buffer; fromFile: boolean } {
  if (configured !== null) return { key: configured, fromFile: false };
  const file = path.join(dataDir, SECRET_KEY_FILE);
  if (!existsSync(file)) {
    writeFileSync(file, randomBytes(32).toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  }
  const mode = statSync(file).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    throw new ConfigError(
      'POSTERN_SECRET_KEY',
      `${file} has mode ${mode.toString(8)}; it must be 600 (chmod 600 ${file})`,
    );
  }
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new ConfigError('POSTERN_SECRET_KEY', `${file} must hold 32 bytes in base64`);
  return { key, fromFile: true };
}
