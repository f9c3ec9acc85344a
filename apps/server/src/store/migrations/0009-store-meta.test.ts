import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestStore, type TestStore } from '../../test-support/test-app.js';
import { bothStores } from '../../test-support/store-kinds.js';
import { migrateTo, migrateToLatest } from '../migrate.js';
import { MIGRATION_NAMES } from './index.js';

const THIS_MIGRATION = '0009-store-meta';

describe.each(bothStores())(`migration ${THIS_MIGRATION} (%s)`, (kind) => {
  let t: TestStore;
  beforeEach(async () => {
    t = await createTestStore(kind, { migrate: false });
    await migrateTo(t.store.db, MIGRATION_NAMES[MIGRATION_NAMES.indexOf(THIS_MIGRATION) - 1] ?? '');
  });
  afterEach(async () => {
    await t.dispose();
  });

  it('adds store_meta: one value per key, none before it', async () => {
    const db = t.store.db;
    await expect(db.selectFrom('storeMeta').selectAll().execute()).rejects.toThrow();

    await migrateToLatest(db);

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
    await migrateToLatest(t.store.db);
    await migrateTo(t.store.db, MIGRATION_NAMES[MIGRATION_NAMES.indexOf(THIS_MIGRATION) - 1] ?? '');
    await expect(t.store.db.selectFrom('storeMeta').selectAll().execute()).rejects.toThrow();
  });
});
