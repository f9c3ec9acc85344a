import { accessSync, chmodSync, constants, mkdirSync, rmSync, statSync, writeFileSync, type Stats } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { ConfigError } from './config-error.js';
import { errorCode } from './sources.js';

/**
 * Checks, without changing anything, that the state file's directory exists and is writable, or can
 * be created. Used by every command (check-config too); returns a warning for a directory others can
 * read, because the state file lists the addresses that currently have access.
 */
export function inspectStateDirectory(stateFile: string, label: string): string | null {
  const existing = statOrNull(stateFile, label);
  if (existing?.isDirectory() === true) throw new ConfigError(label, `${stateFile} is a directory, not a file`);
  const dir = path.dirname(stateFile);
  let nearest = dir;
  let stats = statOrNull(nearest, label);
  while (stats === null && path.dirname(nearest) !== nearest) {
    nearest = path.dirname(nearest);
    stats = statOrNull(nearest, label);
  }
  if (stats === null || !stats.isDirectory()) {
    throw new ConfigError(label, `${dir} cannot be created: ${nearest} is not a directory`);
  }
  try {
    accessSync(nearest, constants.W_OK | constants.X_OK);
  } catch (error) {
    const problem = nearest === dir ? 'is not writable' : `cannot be created in ${nearest}`;
    throw new ConfigError(label, `${dir} ${problem} (${errorCode(error)})`);
  }
  const mode = stats.mode & 0o777;
  return nearest === dir && (mode & 0o077) !== 0
    ? `state directory ${dir} has mode ${mode.toString(8)}; 700 keeps the list of granted addresses private`
    : null;
}

/**
 * Creates the state file's directory (mode 700) when missing and proves it is writable with a real
 * file, because root passes access() checks even on a read-only mount. Called once when `run` starts.
 */
export function prepareStateDirectory(stateFile: string, label: string): void {
  const dir = path.dirname(stateFile);
  try {
    if (statOrNull(dir, label) === null) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      // mkdir's mode passes through the umask; set it exactly.
      chmodSync(dir, 0o700);
    }
    const probe = path.join(dir, `.write-probe-${randomBytes(6).toString('hex')}`);
    writeFileSync(probe, '', { mode: 0o600 });
    rmSync(probe);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(label, `${dir} is not a writable directory (${errorCode(error)})`);
  }
}

function statOrNull(target: string, label: string): Stats | null {
  try {
    return statSync(target);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT') return null;
    // ENOTDIR: a path component is a file, so nothing can be created beneath it.
    if (code === 'ENOTDIR') throw new ConfigError(label, `${target} cannot be created: a parent is not a directory`);
    throw new ConfigError(label, `cannot inspect ${target} (${code})`);
  }
}
