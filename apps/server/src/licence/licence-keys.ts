import { appendFileSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { KeyObject } from 'node:crypto';
import type { AppContext } from '../app-context.js';
import { publicKeyFromBase64, publicKeyFromRaw } from './licence-format.js';

/**
 * The file in the data directory that lists further trusted licence public keys: one base64 key a
 * line, `#` starts a comment. `postern licence keygen` appends to it, so an installation that made its
 * own signing key trusts it without an environment change.
 */
const TRUSTED_KEYS_FILE = 'licence-public-keys';

export function trustedKeysFile(dataDir: string): string {
  return path.join(dataDir, TRUSTED_KEYS_FILE);
}

/** The file's keys as last read, by path, with the stat that says whether it changed since. */
const fileKeys = new Map<string, { stamp: string; keys: KeyObject[] }>();

/**
 * Every key a licence may be signed with: POSTERN_LICENCE_PUBLIC_KEYS, then the data directory's
 * file. The file is checked on every call so a key added by `keygen` counts at once, on a running
 * server too; it is re-read only when its size or modification time changed (a stat is a few
 * microseconds, a read a trip through the thread pool on every status and grant call). A line that
 * is not a key is skipped with a warning rather than breaking status.
 *
 * The file belongs to one server's data directory, not to the store: replicas on one store trust
 * the same keys only when each is configured alike, so give every replica the keys in
 * POSTERN_LICENCE_PUBLIC_KEYS (a key only in one replica's file makes the licence valid there alone).
 * Keys stay out of the store on purpose: whoever may write the store must not be able to trust a
 * key of their own and sign themselves a licence.
 */
export function trustedLicenceKeys(ctx: AppContext): KeyObject[] {
  const fromConfig = configuredKeys(ctx.config.licencePublicKeys);
  const file = trustedKeysFile(ctx.config.dataDir);
  let stamp: string;
  try {
    const stat = statSync(file);
    stamp = `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
  } catch (error) {
    if (!isMissing(error)) ctx.logger.warn({ file, err: error }, 'cannot read the trusted licence keys file');
    fileKeys.delete(file);
    return fromConfig;
  }
  const known = fileKeys.get(file);
  if (known?.stamp === stamp) return [...fromConfig, ...known.keys];
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (!isMissing(error)) ctx.logger.warn({ file, err: error }, 'cannot read the trusted licence keys file');
    return fromConfig;
  }
  const { keys, badLines } = parseTrustedKeys(text);
  if (badLines.length > 0) {
    ctx.logger.warn({ file, lines: badLines }, 'skipped lines that are not Ed25519 public keys');
  }
  fileKeys.set(file, { stamp, keys });
  return [...fromConfig, ...keys];
}

/** The configured keys as key objects, made once per configuration (the list never changes). */
const configKeys = new WeakMap<readonly Buffer[], KeyObject[]>();

function configuredKeys(raws: readonly Buffer[]): KeyObject[] {
  let keys = configKeys.get(raws);
  if (keys === undefined) {
    keys = raws.map((raw) => publicKeyFromRaw(raw));
    configKeys.set(raws, keys);
  }
  return keys;
}

/** The keys in a trusted-keys file, and the (1-based) numbers of lines that are not keys. */
export function parseTrustedKeys(text: string): { keys: KeyObject[]; badLines: number[] } {
  const keys: KeyObject[] = [];
  const badLines: number[] = [];
  text.split('\n').forEach((rawLine, index) => {
    const line = rawLine.replace(/#.*$/, '').trim();
    if (line === '') return;
    const key = publicKeyFromBase64(line);
    if (key === null) badLines.push(index + 1);
    else keys.push(key);
  });
  return { keys, badLines };
}

/**
 * Adds a public key (base64) to the data directory's trusted-keys file, creating it with mode 0600.
 * Returns the file's path. A key already listed is not added twice.
 */
export function appendTrustedKey(dataDir: string, publicKey: string, comment: string): string {
  const file = trustedKeysFile(dataDir);
  let existing = '';
  try {
    existing = readFileSync(file, 'utf8');
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
  const listed = existing.split('\n').some((line) => line.replace(/#.*$/, '').trim() === publicKey);
  if (!listed) {
    const separator = existing === '' || existing.endsWith('\n') ? '' : '\n';
    appendFileSync(file, `${separator}# ${comment}\n${publicKey}\n`, { mode: 0o600 });
  }
  return file;
}

function isMissing(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'ENOENT';
}
