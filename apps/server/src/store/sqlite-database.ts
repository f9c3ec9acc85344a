import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** Enough for every distinct query the server makes; `in (?, ?, …)` lists of many lengths evict. */
const DEFAULT_CAPACITY = 512;

/** better-sqlite3 refuses to bind JavaScript booleans: they are bound as 1/0 (and read back as such). */
function bindable(parameters: readonly unknown[]): unknown[] {
  return parameters.map((value) => (typeof value === 'boolean' ? Number(value) : value));
}

/** A statement as Kysely's SQLite interface has it, plus whether it leaves the database unchanged. */
export interface CachedSqliteStatement extends SqliteStatement {
  /**
   * SQLite's sqlite3_stmt_readonly: true for a SELECT, but also for BEGIN, SAVEPOINT and setting
   * pragmas; false for INSERT … RETURNING, which also returns rows.
   */
  readonly readOnly: boolean;
}

/** The database as Kysely's SQLite interface has it, with statements that say whether they write. */
export interface CachedSqliteDatabase extends SqliteDatabase {
  prepare(sql: string): CachedSqliteStatement;
  /** A transaction is open on this connection (SQLite may have rolled one back by itself). */
  readonly inTransaction: boolean;
}

interface KeptStatement {
  raw: BetterSqlite3.Statement;
  bound: CachedSqliteStatement;
}

function keep(raw: BetterSqlite3.Statement): KeptStatement {
  return {
    raw,
    bound: {
      reader: raw.reader,
      readOnly: raw.readonly,
      all: (parameters) => raw.all(bindable(parameters)),
      run: (parameters) => raw.run(bindable(parameters)),
      iterate: (parameters) => raw.iterate(bindable(parameters)),
    },
  };
}

/**
 * The database as Kysely's SQLite dialect sees it: compiled statements kept for reuse, booleans
 * bound as 1/0 so queries are written once for both stores.
 *
 * Kysely prepares every query afresh, and preparing (parsing and planning the SQL) costs about as
 * much as running a small query. SQLite re-prepares a kept statement by itself when the schema
 * changes (a migration), so a kept statement never runs against a stale plan. A statement still
 * iterating (a streamed query) is busy and cannot be shared: the caller then gets a fresh one.
 * Binding booleans here, rather than in a Kysely plugin, spares every query a pass over its tree.
 */
export function kyselySqliteDatabase(
  database: BetterSqlite3.Database,
  capacity = DEFAULT_CAPACITY,
): CachedSqliteDatabase {
  // A Map iterates in insertion order: re-inserting on use makes the first key the least recently used.
  const statements = new Map<string, KeptStatement>();
  return {
    get inTransaction() {
      return database.inTransaction;
    },
    close: () => {
      statements.clear();
      database.close();
    },
    prepare: (sql: string): CachedSqliteStatement => {
      const kept = statements.get(sql);
      if (kept !== undefined && !kept.raw.busy) {
        statements.delete(sql);
        statements.set(sql, kept);
        return kept.bound;
      }
      const fresh = keep(database.prepare(sql));
      if (kept === undefined) {
        if (statements.size >= capacity) statements.delete(statements.keys().next().value ?? '');
        statements.set(sql, fresh);
      }
      return fresh.bound;
    },
  };
}
