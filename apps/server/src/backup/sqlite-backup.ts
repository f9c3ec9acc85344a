import { existsSync, rmSync } from 'node:fs';
import type BetterSqlite3 from 'better-sqlite3';
import { loadSqliteDriver } from '../store/sqlite-driver.js';
import { MIGRATION_NAMES } from '../store/migrations/index.js';
import { StoreTooNewError } from '../store/migrate.js';
import { BackupError, createPrivateFile, requireReadableFile } from './backup-file.js';

/** How long a backup or restore connection waits for a lock (a server's write in progress). */
const LOCK_WAIT_MS = 5_000;

/**
 * Copies the SQLite store to `target` (a new file, mode 0600) with SQLite's online backup API: the
 * copy is one consistent state of the store even while a server writes to it. All pages go in one
 * step after the first, inside one read transaction, so concurrent writes (which WAL lets go on) can
 * never restart the copy.
 */
export async function backupSqlite(storeFile: string, target: string): Promise<void> {
  if (!existsSync(storeFile)) throw new BackupError(`there is no store at ${storeFile}`);
  createPrivateFile(target);
  const source = openExisting(storeFile);
  try {
    await source.backup(target, { progress: ({ remainingPages }) => remainingPages });
  } catch (error) {
    rmSync(target, { force: true });
    throw new BackupError(`the backup of ${storeFile} failed (${describe(error)})`);
  } finally {
    source.close();
  }
}

/**
 * Replaces the store's content with the backup's, through the same API in the other direction (so a
 * WAL file of the old store cannot be mixed into the new one). The caller holds the data directory's
 * single-process lock; the backup is checked first, so a bad file leaves the store untouched.
 */
export async function restoreSqlite(backupFile: string, storeFile: string): Promise<void> {
  const backup = openValidBackup(backupFile);
  try {
    if (!existsSync(storeFile)) createPrivateFile(storeFile);
    await backup.backup(storeFile, { progress: ({ remainingPages }) => remainingPages });
  } catch (error) {
    if (error instanceof BackupError) throw error;
    throw new BackupError(`restoring ${backupFile} into ${storeFile} failed (${describe(error)})`);
  } finally {
    backup.close();
  }
}

/** The backup, opened read-only once it is known to be a sound Postern store this release can run. */
function openValidBackup(file: string): BetterSqlite3.Database {
  requireReadableFile(file);
  let database: BetterSqlite3.Database;
  try {
    database = openExisting(file, { readonly: true });
  } catch (error) {
    throw new BackupError(`${file} is not a Postern SQLite backup (${describe(error)})`);
  }
  try {
    const check = database.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new BackupError(`${file} is damaged (SQLite quick_check: ${String(check)})`);
    const applied = database.prepare('select name from postern_migration').pluck().all() as string[];
    const unknown = applied.filter((name) => !MIGRATION_NAMES.includes(name));
    if (unknown.length > 0) throw new StoreTooNewError(unknown);
    return database;
  } catch (error) {
    database.close();
    if (error instanceof BackupError || error instanceof StoreTooNewError) throw error;
    throw new BackupError(`${file} is not a Postern SQLite backup (${describe(error)})`);
  }
}

function openExisting(file: string, options: { readonly?: boolean } = {}): BetterSqlite3.Database {
  const Database = loadSqliteDriver();
  return new Database(file, { fileMustExist: true, timeout: LOCK_WAIT_MS, readonly: options.readonly ?? false });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
