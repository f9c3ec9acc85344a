import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import type { TestStore } from './test-app.js';

/**
 * Kysely's bookkeeping of the migrations (store/migrate.ts names them): the only rows a migrated
 * store has. Every other table starts empty; no migration seeds rows and no table has a sequence
 * (ids are UUIDv7 made by the server), which use-test-app.test.ts checks.
 */
const MIGRATION_TABLES = ['postern_migration', 'postern_migration_lock'];

/**
 * A function that empties every data table of the store, back to what the migrations left: one
 * transaction of DELETEs, children before parents. Measured against the alternatives on both
 * stores: on SQLite ~0.5 ms (copying a migrated file and opening it costs ~2 ms, and would give the
 * app a new connection to be rewired to); on PostgreSQL ~4 ms, where TRUNCATE … CASCADE costs
 * 150-300 ms for the two dozen tables (it replaces every table's and index's files).
 *
 * On PostgreSQL the DELETEs ring the cluster doorbells of the rows they remove (migration 0012);
 * nobody hears them, since useTestApp closes a test's replicas (and their listeners) before.
 */
export async function storeReset(testStore: TestStore): Promise<() => Promise<void>> {
  const { db, dialect } = testStore.store;
  const tables = dialect === 'sqlite' ? await sqliteTablesChildrenFirst(db) : await postgresTablesChildrenFirst(db);
  const statements = tables.map((table) => `delete from "${table}";`).join('\n');
  if (dialect === 'postgres') {
    // One round trip: the simple query protocol runs the whole batch as one transaction.
    const batch = sql.raw(`begin;\n${statements}\ncommit;`);
    return async () => {
      await batch.execute(db);
    };
  }
  return async () => {
    await db.transaction().execute(async (trx) => {
      for (const table of tables) await sql`delete from ${sql.id(table)}`.execute(trx);
    });
  };
}

/** The data tables with every table before the tables it references (so DELETEs never break a key). */
function childrenFirst(references: Map<string, Set<string>>): string[] {
  const ordered: string[] = [];
  const visiting = new Set<string>();
  const visit = (table: string) => {
    if (ordered.includes(table) || visiting.has(table)) return;
    visiting.add(table);
    // Whoever references `table` goes first.
    for (const [child, parents] of references) if (parents.has(table) && child !== table) visit(child);
    visiting.delete(table);
    ordered.push(table);
  };
  for (const table of [...references.keys()].sort()) visit(table);
  return ordered;
}

async function sqliteTablesChildrenFirst(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(db);
  const references = new Map<string, Set<string>>();
  for (const { name } of rows) {
    if (MIGRATION_TABLES.includes(name)) continue;
    const keys = await sql<{ table: string }>`select "table" from pragma_foreign_key_list(${name})`.execute(db);
    references.set(name, new Set(keys.rows.map((key) => key.table)));
  }
  return childrenFirst(references);
}

async function postgresTablesChildrenFirst(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select tablename as name from pg_tables where schemaname = current_schema()`.execute(db);
  const keys = await sql<{ child: string; parent: string }>`
    select c.relname as child, p.relname as parent
    from pg_constraint k
    join pg_class c on c.oid = k.conrelid
    join pg_class p on p.oid = k.confrelid
    where k.contype = 'f' and k.connamespace = current_schema()::regnamespace`.execute(db);
  const references = new Map<string, Set<string>>();
  for (const { name } of rows) if (!MIGRATION_TABLES.includes(name)) references.set(name, new Set());
  for (const { child, parent } of keys.rows) references.get(child)?.add(parent);
  return childrenFirst(references);
}

/**
 * Empties the test's data directory but for the SQLite store's own files: what a test wrote there
 * (a secret key file, licence keys, a backup) must not be found by the next.
 */
export function emptyDataDir(testStore: TestStore): void {
  const keep = testStore.location.kind === 'sqlite' ? path.basename(testStore.location.file) : null;
  for (const entry of readdirSync(testStore.dataDir)) {
    if (keep !== null && (entry === keep || entry.startsWith(`${keep}-`))) continue;
    rmSync(path.join(testStore.dataDir, entry), { recursive: true, force: true });
  }
}
