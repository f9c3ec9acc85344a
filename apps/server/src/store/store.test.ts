import { afterEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestStore, type TestStore } from '../test-support/test-app.js';
import { bothStores } from '../test-support/store-kinds.js';
import { migrateToLatest, StoreTooNewError } from './migrate.js';
import { MIGRATION_NAMES } from './migrations/index.js';
import { describeUrl, openStore } from './store.js';
import { ConfigError } from '../config/config-error.js';

describe.each(bothStores())('store and migrations (%s)', (kind) => {
  let t: TestStore | undefined;
  afterEach(async () => {
    await t?.dispose();
    t = undefined;
  });

  it('applies every migration to a new store, then has nothing left to apply', async () => {
    t = await createTestStore(kind, { migrate: false });
    expect(await migrateToLatest(t.store.db)).toEqual(MIGRATION_NAMES);
    expect(await migrateToLatest(t.store.db)).toEqual([]);
  });

  it('refuses a store migrated by a newer release and leaves it untouched', async () => {
    t = await createTestStore(kind);
    await sql`insert into postern_migration (name, timestamp) values ('9999-from-the-future', '2099-01-01')`.execute(
      t.store.db,
    );
    await expect(migrateToLatest(t.store.db)).rejects.toThrow(StoreTooNewError);
    await expect(migrateToLatest(t.store.db)).rejects.toThrow(/newer than this Postern.*9999-from-the-future/);
  });

  it('writes and reads booleans and epoch milliseconds the same way', async () => {
    t = await createTestStore(kind);
    const big = Date.UTC(2099, 11, 31, 23, 59, 59, 999);
    await t.store.db.insertInto('settings').values({ key: 'probe', value: 'true', updatedAt: big }).execute();
    const row = await t.store.db
      .selectFrom('settings')
      .selectAll()
      .where('key', '=', 'probe')
      .executeTakeFirstOrThrow();
    expect(row.updatedAt).toBe(big);
    expect(typeof row.updatedAt).toBe('number');
  });
});

describe('store connections', () => {
  it('runs SQLite in WAL mode with foreign keys enforced', async () => {
    const t = await createTestStore('sqlite');
    try {
      // CamelCasePlugin renames result columns, so journal_mode reads back as journalMode.
      const journal = await sql<{ journalMode: string }>`pragma journal_mode`.execute(t.store.db);
      const foreignKeys = await sql<{ foreignKeys: number }>`pragma foreign_keys`.execute(t.store.db);
      expect(journal.rows[0]?.journalMode).toBe('wal');
      expect(foreignKeys.rows[0]?.foreignKeys).toBe(1);
    } finally {
      await t.dispose();
    }
  });

  it('names DATABASE_URL and the server, never the password, when PostgreSQL is unreachable', async () => {
    const attempt = openStore({ kind: 'postgres', url: 'postgres://postern:s3cret@127.0.0.1:1/postern' });
    await expect(attempt).rejects.toThrow(ConfigError);
    await expect(attempt).rejects.toThrow(
      /^DATABASE_URL: cannot connect to PostgreSQL 127\.0\.0\.1:1\/postern \(ECONNREFUSED/,
    );
    await expect(attempt).rejects.not.toThrow(/s3cret/);
  });

  it('describes a PostgreSQL URL without its credentials', () => {
    expect(describeUrl('postgres://u:pw@db.internal:6432/postern?sslmode=require')).toBe('db.internal:6432/postern');
    expect(describeUrl('postgresql://u@localhost/postern?host=/var/run/postgresql')).toBe(
      '/var/run/postgresql:5432/postern',
    );
  });
});
