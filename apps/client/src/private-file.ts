import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, linkSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { usageError } from './errors.js';

/** Mode of every file postern-client writes: its key, config and session are its owner's alone. */
export const PRIVATE_FILE_MODE = 0o600;
/** Mode of a directory postern-client creates for them. */
export const PRIVATE_DIR_MODE = 0o700;

/** Creates `dir` (and missing parents) with mode 0700; an existing directory is left as it is. */
export function ensurePrivateDir(dir: string): void {
  if (existsSync(dir)) return;
  try {
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  } catch (error) {
    throw usageError(`cannot create the directory ${dir}: ${reason(error)}`);
  }
}

/**
 * Writes `content` to `file` with mode 0600 from the first byte: a temporary file is created with
 * that mode (O_EXCL, so nothing else's file is reused) and then moved into place, so no reader ever
 * sees the file half written or with a wider mode. Without `replace` an existing file is kept and
 * the write refused (a hard link, unlike rename, never overwrites).
 */
export function writePrivateFile(file: string, content: string, { replace }: { replace: boolean }): void {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const fd = openSync(temporary, 'wx', PRIVATE_FILE_MODE);
    try {
      writeSync(fd, content);
    } finally {
      closeSync(fd);
    }
    if (replace) renameSync(temporary, file);
    else linkSync(temporary, file);
  } catch (error) {
    if (!replace && isCode(error, 'EEXIST')) throw usageError(`${file} exists already (--force replaces it)`);
    throw usageError(`cannot write ${file}: ${reason(error)}`);
  } finally {
    rmSync(temporary, { force: true });
  }
}

/** Whether `error` is a Node system error with this `code` (ENOENT, EEXIST …). */
export function isCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === code;
}

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOENT: 'no such file or directory',
  ENOTDIR: 'a part of the path is not a directory',
  EISDIR: 'it is a directory',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
};

/** The short reason of a file system error, without the stack. */
export function reason(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') {
    return REASONS[error.code] ?? error.code;
  }
  return error instanceof Error ? error.message : String(error);
}
