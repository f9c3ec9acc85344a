import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { ConfigError } from '../config/config-error.js';
import { backoffDelay, type Backoff } from '../lib/backoff.js';
import { gaveUpOnOutsideLock } from './store-unavailable.js';

/**
 * How long start-up waits for a lock held outside this process (a backup copying the SQLite file, an
 * operator's sqlite3 shell): far longer than a request may (about a second), since nothing is served
 * yet and giving up means the service does not start at all.
 */
const START_UP_LOCK_WAIT_MS = 60_000;
const START_UP_RETRY: Backoff = { initialMs: 250, maxMs: 2_000 };

/**
 * Runs start-up work on the store (migrations, recording the key's check value), again and again
 * while the store is locked by another process, up to `maxWaitMs`; then stops with one clear line.
 * Each try is all-or-nothing (a transaction, or one statement), so trying again is safe.
 */
export async function whenStoreFree<T>(
  work: () => Promise<T>,
  what: { logger: Logger; store: string; maxWaitMs?: number },
): Promise<T> {
  const maxWaitMs = what.maxWaitMs ?? START_UP_LOCK_WAIT_MS;
  const started = performance.now();
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      if (!gaveUpOnOutsideLock(error)) throw error;
      const waited = performance.now() - started;
      if (waited >= maxWaitMs) {
        throw new ConfigError(
          'POSTERN_DATA_DIR',
          `the store ${what.store} stayed locked by another process for ${Math.round(waited / 1000)} s; ` +
            'end that process (a sqlite3 shell, a backup, another postern command) and start again',
        );
      }
      if (attempt === 0) what.logger.warn({ store: what.store }, 'the store is locked by another process; waiting');
      await sleep(Math.min(maxWaitMs - waited, backoffDelay(attempt, START_UP_RETRY)));
    }
  }
}
