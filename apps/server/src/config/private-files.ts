import { closeSync, fchmodSync, openSync, readdirSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';

/**
 * The mode of every file Postern writes under the data directory, and of backups and signing keys
 * wherever they go: the store holds password hashes and sealed secrets, the key file opens them.
 */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Creates `file` empty with mode 0600 unless it exists (an existing file keeps its mode: see
 * looseFileWarnings). For a SQLite database this matters beyond the file itself: SQLite creates the
 * `-wal`, `-shm` and `-journal` files beside a database with the database file's own mode, whenever
 * it creates them (the WAL again after the last connection closed it, say), so a private database
 * keeps private companions.
 */
export function createPrivateFileIfMissing(file: string): void {
  let fd: number;
  try {
    fd = openSync(file, 'wx', PRIVATE_FILE_MODE);
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'EEXIST') return;
    throw error;
  }
  try {
    // The umask may only have narrowed the mode, but make it exact.
    fchmodSync(fd, PRIVATE_FILE_MODE);
  } finally {
    closeSync(fd);
  }
}

/** Writes `text` to `file` (created or replaced), leaving it with mode 0600 whatever it had before. */
export function writePrivateFile(file: string, text: string): void {
  const fd = openSync(file, 'w', PRIVATE_FILE_MODE);
  try {
    fchmodSync(fd, PRIVATE_FILE_MODE);
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/** A file in the data directory that others than its owner may read or write, and what to do. */
export interface LooseFile {
  file: string;
  /** Its permission bits in octal, as chmod takes them ("644"). */
  mode: string;
  /** The warning: the file, its mode, and the command that makes it private. */
  message: string;
}

/**
 * One warning for each regular file directly in `dir` that others than its owner may read or
 * write, naming the file, its mode and the command that fixes it. Files Postern made since this
 * release are 0600 already; an older release, a copy or a restore by hand may have left others.
 */
export function looseFileWarnings(dir: string): LooseFile[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const warnings: LooseFile[] = [];
  for (const name of names.sort()) {
    const file = path.join(dir, name);
    let mode: number;
    try {
      const stat = statSync(file);
      if (!stat.isFile()) continue;
      mode = stat.mode & 0o777;
    } catch {
      // Gone meanwhile (the probe of another process, a WAL just checkpointed away): nothing to say.
      continue;
    }
    if ((mode & 0o077) === 0) continue;
    const octal = mode.toString(8);
    warnings.push({
      file,
      mode: octal,
      message:
        `${file} has mode ${octal}; others on this host may read it (the store holds password hashes ` +
        `and sealed secrets): run chmod 600 ${file}`,
    });
  }
  return warnings;
}
