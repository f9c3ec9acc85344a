import { describe, expect, it } from 'vitest';
import { bothStores } from '../../test-support/store-kinds.js';
import { useStoreBeforeMigration } from '../../test-support/migration-test.js';

const THIS_MIGRATION = '0009-store-meta';

describe.each(bothStores())(`migration ${THIS_MIGRATION} (%s)`, (kind) => {
  const t = useStoreBeforeMigration(kind, THIS_MIGRATION);

  it('adds store_meta: one value per key, none before it', async () => {
    const db = t.db;
    await expect(db.selectFrom('storeMeta').selectAll().execute()).rejects.toThrow();

    await t.migrateToLatest();

    expect(await db.selectFrom('storeMeta').selectAll().execute()).toEqual([]);
    await db.insertInto('storeMeta').values({ key: 'secret-key-check', value: 'v1.x' }).execute();
    await expect(
      db.insertInto('storeMeta').values({ key: 'secret-key-check', value: 'v1.y' }).execute(),
    ).rejects.toThrow();
    expect(await db.selectFrom('storeMeta').selectAll().execute()).toEqual([
      { key: 'secret-key-check', value: 'v1.x' },
    ]);
  });

  it('is undone by dropping the table', async () => {
    await t.migrateToLatest();
    await t.migrateToBefore();
    await expect(t.db.selectFrom('storeMeta').selectAll().execute()).rejects.toThrow();
  });
});
