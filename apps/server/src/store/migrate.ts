import { Migrator, PostgresAdapter, sql, type Kysely, type MigrationResultSet } from 'kysely';
import { MIGRATIONS, MIGRATION_NAMES } from './migrations/index.js';

/** The store was migrated by a newer Postern; running this one could corrupt it. */
export class StoreTooNewError extends Error {
  constructor(readonly unknownMigrations: string[]) {
    super(
      `the store's schema is newer than this Postern (it has migration ${unknownMigrations.join(', ')}, ` +
        `this release knows up to ${MIGRATION_NAMES.at(-1) ?? 'none'}); run the newer Postern or restore a matching backup`,
    );
    this.name = 'StoreTooNewError';
  }
}

export class MigrationFailedError extends Error {
  constructor(migration: string, cause: unknown) {
    super(`migration ${migration} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'MigrationFailedError';
  }
}

/** Migrations work below the typed schema (they create it), so they see the store untyped. */
function untyped<DB>(db: Kysely<DB>): Kysely<unknown> {
  return db as unknown as Kysely<unknown>;
}

/**
 * Our own bookkeeping table names, so a database shared with another Kysely application cannot
 * confuse the two migration histories.
 */
const MIGRATION_TABLE = 'postern_migration';
const MIGRATION_LOCK_TABLE = 'postern_migration_lock';

/**
 * On PostgreSQL the migrator must be told the schema: otherwise it takes a bookkeeping table in any
 * schema of the database as ours. We use the schema our search path resolves to.
 */
async function migrator(db: Kysely<unknown>): Promise<Migrator> {
  const schema = await currentPostgresSchema(db);
  return new Migrator({
    db,
    provider: { getMigrations: () => Promise.resolve(MIGRATIONS) },
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
    ...(schema === null ? {} : { migrationTableSchema: schema }),
  });
}

async function currentPostgresSchema(db: Kysely<unknown>): Promise<string | null> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return null;
  const result = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  return result.rows[0]?.schema ?? null;
}

/** Migrations recorded in the store that this release does not have. */
async function unknownAppliedMigrations(db: Kysely<unknown>): Promise<string[]> {
  // Asked directly rather than through introspection, which on PostgreSQL lists every schema's tables
  // and not only the ones on the search path this store uses.
  let names: string[];
  try {
    const rows = await sql<{ name: string }>`select name from ${sql.table(MIGRATION_TABLE)}`.execute(db);
    names = rows.rows.map((row) => row.name);
  } catch (error) {
    if (isMissingTable(error)) return [];
    throw error;
  }
  return names.filter((name) => !MIGRATION_NAMES.includes(name));
}

/**
 * Migrations this release has that the store has not applied (none recorded: all of them). One
 * small read of the bookkeeping table, cheap enough for every readiness probe.
 */
export async function pendingMigrations<DB>(typedDb: Kysely<DB>): Promise<string[]> {
  const db = untyped(typedDb);
  let applied: Set<string>;
  try {
    const rows = await sql<{ name: string }>`select name from ${sql.table(MIGRATION_TABLE)}`.execute(db);
    applied = new Set(rows.rows.map((row) => row.name));
  } catch (error) {
    if (isMissingTable(error)) return [...MIGRATION_NAMES];
    throw error;
  }
  return MIGRATION_NAMES.filter((name) => !applied.has(name));
}

function isMissingTable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = 'code' in error ? error.code : undefined;
  return code === '42P01' || /no such table/i.test(error.message);
}

/** Refuses a store migrated by a newer release, then applies every pending migration in order. */
export async function migrateToLatest<DB>(typedDb: Kysely<DB>): Promise<string[]> {
  const db = untyped(typedDb);
  const unknown = await unknownAppliedMigrations(db);
  if (unknown.length > 0) throw new StoreTooNewError(unknown);
  const { error, results }: MigrationResultSet = await (await migrator(db)).migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName ?? 'unknown';
    throw new MigrationFailedError(failed, error);
  }
  return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName);
}

/**
 * Applies (or undoes) migrations until `name` is the last one applied: a store as an older release
 * left it, for the tests of the migration that follows.
 */
export async function migrateTo<DB>(typedDb: Kysely<DB>, name: string): Promise<void> {
  const { error, results }: MigrationResultSet = await (await migrator(untyped(typedDb))).migrateTo(name);
  if (error !== undefined) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName ?? name;
    throw new MigrationFailedError(failed, error);
  }
}
