import pino from 'pino';
import { describe, it, type TestContext } from 'vitest';
import type BetterSqlite3 from 'better-sqlite3';
import { ConfigError } from '../config/config-error.js';
import { createTestStore, type TestStore } from '../test-support/test-app.js';
import { migrateToLatest } from './migrate.js';
import { MIGRATION_NAMES } from './migrations/index.js';
import { loadSqliteDriver } from './sqlite-driver.js';
import { whenStoreFree } from './start-up-wait.js';

/** What the case's logger wrote at warn and above, and a promise of its first such line. */
function warningLog() {
  const warnings: string[] = [];
  let firstWarning!: () => void;
  const warned = new Promise<void>((resolve) => (firstWarning = resolve));
  const logger = pino(
    { level: 'warn' },
    {
      write: (line: string) => {
        warnings.push(line);
        firstWarning();
      },
    },
  );
  return { logger, warnings, warned };
}

/**
 * A store not yet migrated and another connection on its file (`outside`, for a backup or a sqlite3
 * shell); both closed when the case ends. Each case has its own, so the cases, which spend their
 * time waiting for locks, run at the same time.
 */
async function storeAndOutsider(
  context: Pick<TestContext, 'onTestFinished'>,
): Promise<{ t: TestStore; outside: BetterSqlite3.Database }> {
  const t = await createTestStore('sqlite', { migrate: false });
  if (t.location.kind !== 'sqlite') throw new Error('a SQLite store was asked for');
  const outside = new (loadSqliteDriver())(t.location.file);
  context.onTestFinished(async () => {
    if (outside.inTransaction) outside.exec('rollback');
    outside.close();
    await t.dispose();
  });
  return { t, outside };
}

describe.concurrent('start-up on a SQLite store another process has locked', () => {
  it('waits for the lock far longer than a request would, then migrates', async ({ expect, onTestFinished }) => {
    const { t, outside } = await storeAndOutsider({ onTestFinished });
    const { logger, warnings, warned } = warningLog();
    outside.exec('begin exclusive');
    // The warning comes when a try has given up as a request would (StoreBusyError, after the lock
    // deadline of a request); start-up goes on trying, and the lock is released only then.
    const released = warned.then(() => outside.exec('rollback'));
    const applied = await whenStoreFree(() => migrateToLatest(t.store.db), { logger, store: 'test store' });
    await released;
    expect(applied).toEqual(MIGRATION_NAMES);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('the store is locked by another process; waiting');
  });

  it('gives up with one line naming the store when the lock outlasts the wait', async ({ expect, onTestFinished }) => {
    const { t, outside } = await storeAndOutsider({ onTestFinished });
    const { logger } = warningLog();
    outside.exec('begin exclusive');
    const started = performance.now();
    const failure = await whenStoreFree(() => migrateToLatest(t.store.db), {
      logger,
      store: 'SQLite /data/postern.db',
      maxWaitMs: 1_500,
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as Error).message).toMatch(/the store SQLite \/data\/postern\.db stayed locked by another process/);
    expect((failure as Error).message).not.toContain('\n');
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_500);
  });

  it('passes other errors on at once', async ({ expect }) => {
    const { logger, warnings } = warningLog();
    const failure = await whenStoreFree(() => Promise.reject(new Error('no such table')), {
      logger,
      store: 'test store',
    }).catch((error: unknown) => error);
    expect((failure as Error).message).toBe('no such table');
    expect(warnings).toEqual([]);
  });
});
