import { readFileSync, statSync } from 'node:fs';
import { ConfigError } from './config-error.js';
import { errorCode } from './sources.js';

/**
 * The content of a file that holds a secret of this agent (its token, its private key), or null when
 * the file does not exist and `missing` says that is allowed. Refuses anything but a regular file, and
 * a file group or others may read: whoever reads it can act as this agent. Messages name the file,
 * never its content.
 */
export function readPrivateFile(
  file: string,
  label: string,
  missing: 'allowed' | 'refused' = 'refused',
): string | null {
  let mode: number;
  try {
    const stats = statSync(file);
    if (!stats.isFile()) throw new ConfigError(label, `${file} is not a regular file`);
    mode = stats.mode & 0o777;
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    if (missing === 'allowed' && errorCode(error) === 'ENOENT') return null;
    throw new ConfigError(label, `cannot read ${file} (${errorCode(error)})`);
  }
  if ((mode & 0o077) !== 0) {
    throw new ConfigError(
      label,
      `${file} is readable by group or others (mode ${mode.toString(8)}); run chmod 600 ${file}`,
    );
  }
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(label, `cannot read ${file} (${errorCode(error)})`);
  }
}
