import { accessSync, chmodSync, constants, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { ConfigError } from './config-error.js';
import { PRIVATE_FILE_MODE } from './private-files.js';

const SETTING = 'POSTERN_DATA_DIR';

/**
 * Makes sure the data directory exists, is private (mode 0700 when we create it) and writable.
 * Returns a warning when an existing directory is readable by others, so the caller can log it.
 */
export function prepareDataDir(dir: string): { warning: string | null } {
  let created = false;
  try {
    const existing = statOrNull(dir);
    if (existing === null) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      // mkdir's mode is filtered by the umask; set it exactly.
      chmodSync(dir, 0o700);
      created = true;
    } else if (!existing.isDirectory()) {
      throw new ConfigError(SETTING, `${dir} exists and is not a directory`);
    }
    accessSync(dir, constants.W_OK | constants.X_OK);
    // root passes access() checks even on read-only mounts, so prove writability with a real file.
    const probe = path.join(dir, `.write-probe-${randomBytes(6).toString('hex')}`);
    writeFileSync(probe, '', { mode: PRIVATE_FILE_MODE });
    rmSync(probe);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(SETTING, `${dir} is not a writable directory (${describe(error)})`);
  }
  const mode = statSync(dir).mode & 0o777;
  const warning =
    !created && (mode & 0o077) !== 0
      ? `data directory ${dir} has mode ${mode.toString(8)}; 700 keeps the store and keys private`
      : null;
  return { warning };
}

function statOrNull(dir: string) {
  try {
    return statSync(dir);
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return null;
    throw error;
  }
}

function describe(error: unknown): string {
  if (error instanceof Error && 'code' in error) return String(error.code);
  return error instanceof Error ? error.message : String(error);
}
