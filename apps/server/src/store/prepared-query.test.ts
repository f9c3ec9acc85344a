import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestStore, type TestStore } from '../test-support/test-app.js';
import { bothStores } from '../test-support/store-kinds.js';
import { storeReset } from '../test-support/store-reset.js';
import { preparedQuery } from './prepared-query.js';

const settingsWithPrefix = preparedQuery((db, prefix: string, after: number) =>
  db
    .selectFrom('settings')
    .select(['key', 'value'])
    // A constant beside the arguments: it must stay in place while the arguments change.
    .where('key', 'like', `${'Test'}%`)
    .where('key', '>=', prefix)
    .where('updatedAt', '>', after)
    .orderBy('key'),
);

const insertSetting = preparedQuery((db, key: string, value: string, updatedAt: number) =>
  db.insertInto('settings').values({ key, value, updatedAt }),
);

describe.each(bothStores())('prepared queries (%s)', (kind) => {
  // One store for the file, emptied before each case: what the cases look at is the queries.
  let t: TestStore;
  let reset: () => Promise<void>;
  beforeAll(async () => {
    t = await createTestStore(kind);
    reset = await storeReset(t);
  });
  afterAll(async () => {
    await t.dispose();
  });
  beforeEach(async () => {
    await reset();
    for (const [key, updatedAt] of [
      ['TestA', 1],
      ['TestB', 2],
      ['TestC', 3],
      ['Other', 4],
    ] as const) {
      await insertSetting(t.store.db, key, `"${key}"`, updatedAt);
    }
  });

  it('runs each call with its own values, keeping the constants', async () => {
    const keys = async (prefix: string, after: number) =>
      (await settingsWithPrefix(t.store.db, prefix, after)).map((row) => row.key);
    expect(await keys('TestA', 0)).toEqual(['TestA', 'TestB', 'TestC']);
    expect(await keys('TestB', 0)).toEqual(['TestB', 'TestC']);
    expect(await keys('TestA', 2)).toEqual(['TestC']);
    expect(await keys('Z', 0)).toEqual([]);
  });

  it('runs inside a transaction of the store, which a rollback undoes', async () => {
    await expect(
      t.store.db.transaction().execute(async (trx) => {
        await insertSetting(trx, 'TestD', '"d"', 5);
        expect((await settingsWithPrefix(trx, 'TestD', 0)).map((row) => row.key)).toEqual(['TestD']);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await settingsWithPrefix(t.store.db, 'TestD', 0)).toEqual([]);
  });

  it('answers rows through the store’s plugins (camelCase names)', async () => {
    const newest = preparedQuery((db, key: string) =>
      db.selectFrom('settings').select(['key', 'updatedAt']).where('key', '=', key),
    );
    expect(await newest(t.store.db, 'TestC')).toEqual([{ key: 'TestC', updatedAt: 3 }]);
  });
});
