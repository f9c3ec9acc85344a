import { readFileSync } from 'node:fs';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { loadSqliteDriver } from './sqlite-driver.js';
import { createPrivateFileIfMissing, writePrivateFile } from '../config/private-files.js';

/** The lock file in the data directory: an empty SQLite database that only ever holds the lock. */
export const PROCESS_LOCK_FILE = 'postern.lock';
/** Beside it, the process id of the holder: only for the message; the lock itself is the truth. */
export const PROCESS_LOCK_PID_FILE = 'postern.pid';

/** The embedded store of `dataDir` is held by another process: a server, or a restore in progress. */
export class StoreInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holderPid: number | null,
    purpose: LockPurpose,
  ) {
    const holder = holderPid === null ? 'another process' : `another process (pid ${holderPid})`;
    super(
      purpose === 'serve'
        ? `the SQLite store in ${dataDir} is in use by ${holder}; SQLite is single-process — ` +
            'use PostgreSQL (DATABASE_URL) to run several servers'
        : `the SQLite store in ${dataDir} is in use by ${holder}; stop the server before restoring`,
    );
    this.name = 'StoreInUseError';
  }
}

type LockPurpose = 'serve' | 'restore';

/** Held until released, or until the process ends however it ends. */
export interface ProcessLock {
  release(): void;
}

/**
 * Takes the data directory's single-process lock, or throws StoreInUseError when another process
 * holds it.
 *
 * Why a SQLite transaction rather than a pid file: the lock is SQLite's own file lock (fcntl), taken by
 * BEGIN EXCLUSIVE on a database of its own and held as long as the connection is open. The kernel
 * releases it when the process ends, even by SIGKILL or a crash, so a stale lock cannot keep a
 * server from starting, and no pid is ever mistaken for ours after reuse. Node has no flock(); this
 * is the same mechanism SQLite uses for the store itself. The pid file beside it only names the holder.
 */
export function takeProcessLock(dataDir: string, purpose: LockPurpose): ProcessLock {
  const Database = loadSqliteDriver();
  const lockFile = path.join(dataDir, PROCESS_LOCK_FILE);
  const pidFile = path.join(dataDir, PROCESS_LOCK_PID_FILE);
  createPrivateFileIfMissing(lockFile);
  const connection: BetterSqlite3.Database = new Database(lockFile, { timeout: 0 });
  try {
    connection.exec('begin exclusive');
  } catch (error) {
    connection.close();
    if (isBusy(error)) throw new StoreInUseError(dataDir, readPid(pidFile), purpose);
    throw error;
  }
  writePrivateFile(pidFile, `${process.pid}\n`);
  return {
    release: () => {
      if (!connection.open) return;
      connection.exec('rollback');
      connection.close();
    },
  };
}

function isBusy(error: unknown): boolean {
  return error instanceof Error && 'code' in error && (error.code === 'SQLITE_BUSY' || error.code === 'SQLITE_LOCKED');
}

function readPid(file: string): number | null {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}
