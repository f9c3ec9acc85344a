import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type BetterSqlite3 from 'better-sqlite3';
import { ConfigError } from '../config/config-error.js';
import { createTestStore, type TestStore } from '../test-support/test-app.js';
import { migrateToLatest } from './migrate.js';
import { MIGRATION_NAMES } from './migrations/index.js';
import { loadSqliteDriver } from './sqlite-driver.js';
import { whenStoreFree } from './start-up-wait.js';

describe('start-up on a SQLite store another process has locked', () => {
  let t: TestStore;
  let outside: BetterSqlite3.Database;
  const warnings: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(line) });

  beforeEach(async () => {
    warnings.length = 0;
    t = await createTestStore('sqlite', { migrate: false });
    if (t.location.kind !== 'sqlite') throw new Error('a SQLite store was asked for');
    outside = new (loadSqliteDriver())(t.location.file);
  });
  afterEach(async () => {
    if (outside.inTransaction) outside.exec('rollback');
    outside.close();
    await t.dispose();
  });

  it('waits for the lock far longer than a request would, then migrates', async () => {
    outside.exec('begin exclusive');
    const released = sleep(2_500).then(() => outside.exec('rollback'));
    const applied = await whenStoreFree(() => migrateToLatest(t.store.db), { logger, store: 'test store' });
    await released;
    expect(applied).toEqual(MIGRATION_NAMES);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('the store is locked by another process; waiting');
  });

  it('gives up with one line naming the store when the lock outlasts the wait', async () => {
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

  it('passes other errors on at once', async () => {
    const failure = await whenStoreFree(() => Promise.reject(new Error('no such table')), {
      logger,
      store: 'test store',
    }).catch((error: unknown) => error);
    expect((failure as Error).message).toBe('no such table');
    expect(warnings).toEqual([]);
  });
});
