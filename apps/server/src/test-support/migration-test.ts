import type { Kysely } from 'kysely';
import { afterEach, beforeEach } from 'vitest';
import { migrateTo, migrateToLatest } from '../store/migrate.js';
import { MIGRATION_NAMES } from '../store/migrations/index.js';
import type { Database } from '../store/schema.js';
import { createTestStore, type TestStore, type TestStoreKind } from './test-app.js';

/** The store of one migration's test, valid inside a test or a hook registered after useStoreBeforeMigration. */
export interface StoreBeforeMigration {
  /** The store, as the migration before this one left it until the test migrates it. */
  readonly db: Kysely<Database>;
  /** Runs the migration under test and every later one: the upgrade a store in the field gets. */
  migrateToLatest(): Promise<void>;
  /** Migrates down to just before the migration under test again (to test that it is undone). */
  migrateToBefore(): Promise<void>;
}

/** The migration just before `migration` (where a store in the field stood), or '' for the first. */
function migrationBefore(migration: string): string {
  const index = MIGRATION_NAMES.indexOf(migration);
  if (index < 0) throw new Error(`no migration named ${migration}`);
  return MIGRATION_NAMES[index - 1] ?? '';
}

/**
 * The shared preamble of a migration's test: before each test a new store of `kind`, migrated up to
 * just before `migration`, so the test can write the rows an older Postern left and then
 * `migrateToLatest()`; the store is disposed after each test.
 *
 *     // inside the test file's describe over the store kinds (the file chooses them):
 *     const t = useStoreBeforeMigration(kind, THIS_MIGRATION);
 *     it('…', async () => { await t.db.insertInto(…); await t.migrateToLatest(); expect(…); });
 */
export function useStoreBeforeMigration(kind: TestStoreKind, migration: string): StoreBeforeMigration {
  const before = migrationBefore(migration);
  let current: TestStore | undefined;
  beforeEach(async () => {
    current = await createTestStore(kind, { migrate: false });
    await migrateTo(current.store.db, before);
  });
  afterEach(async () => {
    await current?.dispose();
    current = undefined;
  });
  const db = (): Kysely<Database> => {
    if (current === undefined) throw new Error('useStoreBeforeMigration: the store exists only inside a test or hook');
    return current.store.db;
  };
  return {
    get db() {
      return db();
    },
    migrateToLatest: async () => {
      await migrateToLatest(db());
    },
    migrateToBefore: () => migrateTo(db(), before),
  };
}
