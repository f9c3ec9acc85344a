import { closeSync, openSync, statSync } from 'node:fs';

/** A backup or restore the operator can fix: printed as one line, exit code 1. */
export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

/**
 * Creates `file` empty with mode 0600 (a backup holds every password hash and sealed secret), and
 * refuses one that exists: a backup never overwrites anything.
 */
export function createPrivateFile(file: string): void {
  try {
    closeSync(openSync(file, 'wx', 0o600));
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : String(error);
    if (code === 'EEXIST') throw new BackupError(`${file} already exists; name a new file`);
    throw new BackupError(`cannot create ${file} (${code})`);
  }
}

/** Stops early when `file` is not a readable regular file. */
export function requireReadableFile(file: string): void {
  let isFile: boolean;
  try {
    isFile = statSync(file).isFile();
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : String(error);
    throw new BackupError(`cannot read ${file} (${code})`);
  }
  if (!isFile) throw new BackupError(`${file} is not a file`);
}
