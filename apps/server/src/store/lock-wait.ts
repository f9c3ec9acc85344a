import { setTimeout as sleep } from 'node:timers/promises';
import { backoffDelay, type Backoff } from '../lib/backoff.js';
import { StoreBusyError, isSqliteBusy } from './store-unavailable.js';

/**
 * Between attempts on a locked store: short at first (most outside locks are a backup's or a CLI
 * command's few milliseconds), at most 50 ms so a released lock is noticed quickly. An attempt is
 * one cheap call that fails at once, so even the ceiling costs nothing worth measuring.
 */
const LOCK_RETRY: Backoff = { initialMs: 2, maxMs: 50 };

export interface LockWaitOptions {
  /** performance.now() after which a locked store is reported as StoreBusyError. */
  deadline: number;
  /** performance.now() when the work was asked for (it may have queued before this call). */
  askedAt: number;
  /** When the wait for the lock starts (true) and ends (false), for the writer gate. */
  waiting?: (waiting: boolean) => void;
}

/**
 * Runs `attempt` (synchronous SQLite work) until it does not meet SQLITE_BUSY/SQLITE_LOCKED, waiting
 * between attempts on a timer instead of in SQLite's busy handler, which would sleep the thread and
 * with it every request. Only work that a BUSY error leaves unchanged may be retried: one autocommit
 * statement, BEGIN IMMEDIATE, COMMIT. Past the deadline it throws StoreBusyError (the API's 503).
 */
export async function retryWhileLocked<T>(
  attempt: () => T,
  { deadline, askedAt, waiting }: LockWaitOptions,
): Promise<T> {
  let waited = false;
  try {
    for (let tries = 0; ; tries += 1) {
      try {
        return attempt();
      } catch (error) {
        if (!isSqliteBusy(error)) throw error;
        const left = deadline - performance.now();
        if (left <= 0) throw new StoreBusyError(performance.now() - askedAt, { cause: error });
        if (!waited) {
          waited = true;
          waiting?.(true);
        }
        await sleep(Math.min(left, backoffDelay(tries, LOCK_RETRY)));
      }
    }
  } finally {
    if (waited) waiting?.(false);
  }
}
