import { fstatSync, openSync, closeSync, readFileSync } from 'node:fs';
import { usageError } from './errors.js';
import { isCode, reason, writePrivateFile } from './private-file.js';

/** Environment variable holding the API key itself, for CI systems that hand secrets over that way. */
export const KEY_ENV = 'POSTERN_CLIENT_KEY';

/** Postern keys are `pst_` and 43 base64url characters; anything printable up to this length is let through. */
const KEY_PATTERN = /^[\x21-\x7e]{16,512}$/;

/** Where the key came from, for messages (never the key itself). */
export interface ApiKey {
  key: string;
  source: string;
}

/**
 * The API key: $POSTERN_CLIENT_KEY when set, else the key file. A key file that group or others may
 * access is refused, as ssh refuses such a private key: whoever can read it can sign in as this
 * machine, and a file left readable once must be assumed copied.
 */
export function readApiKey(keyFile: string, env: NodeJS.ProcessEnv = process.env): ApiKey {
  const fromEnv = env[KEY_ENV];
  if (fromEnv !== undefined && fromEnv !== '')
    return { key: checkedKey(fromEnv, `$${KEY_ENV}`), source: `$${KEY_ENV}` };
  let fd: number;
  try {
    fd = openSync(keyFile, 'r');
  } catch (error) {
    if (isCode(error, 'ENOENT')) {
      throw usageError(
        `the key file ${keyFile} does not exist (postern-client init --key-stdin writes it, or set ${KEY_ENV})`,
      );
    }
    throw usageError(`cannot read the key file ${keyFile}: ${reason(error)}`);
  }
  try {
    // The mode is checked on the open file, so a swap between check and read cannot slip past it.
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw usageError(`the key file ${keyFile} is not a regular file`);
    if (process.platform !== 'win32' && (stats.mode & 0o077) !== 0) {
      throw usageError(
        `the key file ${keyFile} has mode ${modeString(stats.mode)}; group and others must have no access to it (chmod 600 ${keyFile})`,
      );
    }
    return { key: checkedKey(readFileSync(fd, 'utf8'), keyFile), source: keyFile };
  } finally {
    closeSync(fd);
  }
}

/** The key without surrounding white space, or a refusal that never repeats it. */
export function checkedKey(raw: string, source: string): string {
  const key = raw.trim();
  if (key === '') throw usageError(`${source} is empty`);
  if (!KEY_PATTERN.test(key)) {
    throw usageError(`${source} does not hold an API key (one line of 16 to 512 printable characters without spaces)`);
  }
  return key;
}

/** Writes the key file with mode 0600 from creation; refuses to replace one unless `replace`. */
export function writeKeyFile(keyFile: string, key: string, replace: boolean): void {
  writePrivateFile(keyFile, `${checkedKey(key, 'the key read from standard input')}\n`, { replace });
}

/** `0644` for a file mode. */
export function modeString(mode: number): string {
  return `0${(mode & 0o777).toString(8).padStart(3, '0')}`;
}
