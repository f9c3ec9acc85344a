import { setTimeout as sleep } from 'node:timers/promises';
import { backoffDelay, type Backoff } from '../lib/backoff.js';
import type { StoreOutageLog } from '../store/store-outage-log.js';

/**
 * Between attempts at work the store could not take (locked by another process, unreachable): each
 * failed write has already waited for the store's own deadline, so these pauses only keep a long
 * outage from becoming a busy loop.
 */
export const STORE_RETRY: Backoff = { initialMs: 250, maxMs: 5_000 };

/** What untilStored needs to know of the connection it works for. */
export interface RetryScope {
  /** The connection is closing: no further attempt is made. */
  isClosing(): boolean;
  /** Aborted when the connection closes: ends the wait between attempts. */
  readonly signal: AbortSignal;
}

/**
 * Runs `write` until the store takes it, pausing with growing back-off while the store is
 * unavailable. It runs in the connection's serial queue, so the agent's later messages wait their
 * turn and its results are recorded in the order it sent them. False when the connection closed
 * first: its successor is sent the full state, and the agent answers that with fresh results.
 * Errors the outage log does not count as the store being unavailable are rethrown.
 */
export async function untilStored(
  scope: RetryScope,
  outage: StoreOutageLog,
  write: () => Promise<void>,
): Promise<boolean> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      await write();
      outage.succeeded();
      return true;
    } catch (error) {
      if (!outage.failed(error)) throw error;
    }
    if (scope.isClosing()) return false;
    try {
      await sleep(backoffDelay(attempt, STORE_RETRY), undefined, { signal: scope.signal });
    } catch {
      return false;
    }
  }
}
