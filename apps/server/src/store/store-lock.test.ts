import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, it, type TestContext } from 'vitest';
import type BetterSqlite3 from 'better-sqlite3';
import { createTestStore, type TestStore } from '../test-support/test-app.js';
import { migrateToLatest } from './migrate.js';
import { loadSqliteDriver } from './sqlite-driver.js';
import { StoreBusyError } from './store-unavailable.js';
import { openStore, SQLITE_LOCK_WAIT_MS, type Store } from './store.js';

/** What a promise came to, without throwing: for work started now and looked at later. */
async function outcome<T>(promise: Promise<T>): Promise<{ value: T; ms: number } | { error: unknown; ms: number }> {
  const started = performance.now();
  try {
    const value = await promise;
    return { value, ms: performance.now() - started };
  } catch (error) {
    return { error, ms: performance.now() - started };
  }
}

/** The largest stall of the event loop while `work` runs, in milliseconds. */
async function longestStall<T>(work: () => Promise<T>): Promise<{ result: T; stallMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  try {
    const result = await work();
    return { result, stallMs: histogram.max / 1e6 };
  } finally {
    histogram.disable();
  }
}

/*
 * Most cases here wait out the lock deadline (SQLITE_LOCK_WAIT_MS, a second) on purpose. Those that
 * only wait run at the same time, each on its own copy of one migrated store (copied, so no case
 * migrates, a long synchronous stretch, while another measures its waits); the case that measures
 * the event loop's stalls runs on its own.
 */
let template: TestStore;
beforeAll(async () => {
  template = await createTestStore('sqlite');
  // Closed, so its file holds everything (no -wal to go with it) and copies are whole.
  await template.store.close();
});
afterAll(() => rmSync(template.dataDir, { recursive: true, force: true }));

/** A migrated store of the case's own, closed (with its directory) when the case ends. */
async function storeOfTheCase(context: Pick<TestContext, 'onTestFinished'>): Promise<{ store: Store; file: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'postern-store-lock-'));
  cpSync(template.dataDir, dir, { recursive: true });
  const file = path.join(dir, 'postern.db');
  const store = await openStore({ kind: 'sqlite', file });
  context.onTestFinished(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { store, file };
}

const setting = (key: string) => ({ key, value: 'v', updatedAt: 1 });

/**
 * A store with one setting ("before") and another connection on its file, `outside`: it stands for
 * an operator's sqlite3 shell, a backup script or the CLI. Rolled back and closed when the case ends.
 */
async function lockedFromOutside(context: Pick<TestContext, 'onTestFinished'>) {
  const { store, file } = await storeOfTheCase(context);
  const outside: BetterSqlite3.Database = new (loadSqliteDriver())(file);
  context.onTestFinished(() => {
    if (outside.inTransaction) outside.exec('rollback');
    outside.close();
  });
  const writeSetting = (key: string) => store.db.insertInto('settings').values(setting(key)).execute();
  const settingKeys = async () =>
    (await store.db.selectFrom('settings').select('key').orderBy('key').execute()).map((row) => row.key);
  await writeSetting('before');
  return { store, outside, writeSetting, settingKeys };
}

describe('a SQLite store while another process holds the write lock', () => {
  // Alone: a case running beside it could stall the event loop it measures.
  it('answers reads at once, without stalling the event loop, while a write waits for the lock', async ({
    expect,
    onTestFinished,
  }) => {
    const { outside, writeSetting, settingKeys } = await lockedFromOutside({ onTestFinished });
    outside.exec('begin exclusive');
    const { result, stallMs } = await longestStall(async () => {
      const write = outcome(writeSetting('during'));
      const read = await outcome(settingKeys());
      return { read, write: await write };
    });

    expect(result.read).toEqual({ value: ['before'], ms: expect.any(Number) as number });
    expect(result.read.ms).toBeLessThan(250);
    expect(stallMs).toBeLessThan(250);
    expect(result.write).toEqual({
      error: expect.any(StoreBusyError) as StoreBusyError,
      ms: expect.any(Number) as number,
    });
  });

  it.concurrent(
    'fails a write with StoreBusyError about the deadline after it was asked for',
    async ({ expect, onTestFinished }) => {
      const { outside, writeSetting, settingKeys } = await lockedFromOutside({ onTestFinished });
      outside.exec('begin exclusive');
      const write = await outcome(writeSetting('during'));

      expect('error' in write && write.error).toBeInstanceOf(StoreBusyError);
      expect(write.ms).toBeGreaterThanOrEqual(SQLITE_LOCK_WAIT_MS - 20);
      expect(write.ms).toBeLessThan(SQLITE_LOCK_WAIT_MS + 750);
      outside.exec('rollback');
      expect(await settingKeys()).toEqual(['before']);
    },
  );

  it.concurrent(
    'fails a transaction that cannot take the lock, and leaves the writer free for the next',
    async ({ expect, onTestFinished }) => {
      const { store, outside, writeSetting, settingKeys } = await lockedFromOutside({ onTestFinished });
      outside.exec('begin exclusive');
      const transaction = await outcome(
        store.db.transaction().execute(async (trx) => {
          await trx.insertInto('settings').values(setting('in-transaction')).execute();
        }),
      );
      expect('error' in transaction && transaction.error).toBeInstanceOf(StoreBusyError);

      outside.exec('rollback');
      await writeSetting('after');
      expect(await settingKeys()).toEqual(['after', 'before']);
    },
  );

  it.concurrent(
    'completes a write and a transaction begun during the lock once it is released within the deadline',
    async ({ expect, onTestFinished }) => {
      const { store, outside, writeSetting, settingKeys } = await lockedFromOutside({ onTestFinished });
      outside.exec('begin exclusive');
      const write = outcome(writeSetting('single'));
      const transaction = outcome(
        store.db.transaction().execute(async (trx) => {
          await trx.insertInto('settings').values(setting('transaction')).execute();
        }),
      );
      setTimeout(() => outside.exec('commit'), SQLITE_LOCK_WAIT_MS / 3);

      expect(await write).toMatchObject({ value: expect.anything() as unknown });
      expect(await transaction).toMatchObject({ value: undefined });
      expect(await settingKeys()).toEqual(['before', 'single', 'transaction']);
    },
  );

  it.concurrent(
    'fails writes queued behind a locked write together, not one deadline after another',
    async ({ expect, onTestFinished }) => {
      const { outside, writeSetting } = await lockedFromOutside({ onTestFinished });
      outside.exec('begin exclusive');
      const started = performance.now();
      const writes = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((key) => outcome(writeSetting(key))));

      for (const write of writes) expect('error' in write && write.error).toBeInstanceOf(StoreBusyError);
      expect(performance.now() - started).toBeLessThan(2 * SQLITE_LOCK_WAIT_MS);
    },
  );

  it.concurrent('treats INSERT … RETURNING as a write', async ({ expect, onTestFinished }) => {
    const { store, outside } = await lockedFromOutside({ onTestFinished });
    const insertReturning = (key: string) =>
      store.db.insertInto('settings').values(setting(key)).returning('key').executeTakeFirstOrThrow();
    expect(await insertReturning('returned')).toEqual({ key: 'returned' });

    outside.exec('begin exclusive');
    await expect(insertReturning('during')).rejects.toThrow(StoreBusyError);
  });
});

describe.concurrent('a SQLite store busy with its own work', () => {
  it('makes a write wait for its own long transaction rather than refuse it', async ({ expect, onTestFinished }) => {
    const { store } = await storeOfTheCase({ onTestFinished });
    const long = store.db.transaction().execute(async (trx) => {
      await trx.insertInto('settings').values({ key: 'long', value: 'v', updatedAt: 1 }).execute();
      // Holding the transaction open past the lock deadline is the point of this test.
      await sleep(SQLITE_LOCK_WAIT_MS * 1.5);
    });
    const queued = store.db.insertInto('settings').values({ key: 'queued', value: 'v', updatedAt: 1 }).execute();

    await expect(Promise.all([long, queued])).resolves.toBeDefined();
  });

  it('reads committed data outside a transaction and its own writes inside one', async ({ expect, onTestFinished }) => {
    const { store } = await storeOfTheCase({ onTestFinished });
    const keysVia = async (db: typeof store.db) =>
      (await db.selectFrom('settings').select('key').execute()).map((row) => row.key);
    await store.db.transaction().execute(async (trx) => {
      await trx.insertInto('settings').values({ key: 'pending', value: 'v', updatedAt: 1 }).execute();
      expect(await keysVia(trx)).toEqual(['pending']);
      expect(await keysVia(store.db)).toEqual([]);
    });
    expect(await keysVia(store.db)).toEqual(['pending']);
  });
});

describe.concurrent('the SQLite driver beyond single statements', () => {
  const row = (key: string) => ({ key, value: 'v', updatedAt: 1 });

  it('streams a select row by row', async ({ expect, onTestFinished }) => {
    const { store } = await storeOfTheCase({ onTestFinished });
    await store.db
      .insertInto('settings')
      .values([row('a'), row('b')])
      .execute();
    const keys: string[] = [];
    for await (const { key } of store.db.selectFrom('settings').select('key').orderBy('key').stream()) keys.push(key);
    expect(keys).toEqual(['a', 'b']);
  });

  it('rolls back to a savepoint inside a transaction', async ({ expect, onTestFinished }) => {
    const { store } = await storeOfTheCase({ onTestFinished });
    const trx = await store.db.startTransaction().execute();
    await trx.insertInto('settings').values(row('kept')).execute();
    const savepoint = await trx.savepoint('before_dropped').execute();
    await savepoint.insertInto('settings').values(row('dropped')).execute();
    await savepoint.rollbackToSavepoint('before_dropped').execute();
    await trx.commit().execute();

    expect(await store.db.selectFrom('settings').select('key').execute()).toEqual([{ key: 'kept' }]);
  });
});

describe.concurrent('a SQLite store in memory', () => {
  it('runs on its single connection: migrations, transactions, reads and writes', async ({ expect }) => {
    const store = await openStore({ kind: 'sqlite', file: ':memory:' });
    try {
      await migrateToLatest(store.db);
      await store.db.transaction().execute(async (trx) => {
        await trx.insertInto('settings').values({ key: 'k', value: 'v', updatedAt: 1 }).execute();
      });
      expect(await store.db.selectFrom('settings').select('value').where('key', '=', 'k').execute()).toEqual([
        { value: 'v' },
      ]);
    } finally {
      await store.close();
    }
  });
});
