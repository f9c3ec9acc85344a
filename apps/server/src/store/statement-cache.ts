import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** Enough for every distinct query the server makes; `in (?, ?, …)` lists of many lengths evict. */
const DEFAULT_CAPACITY = 512;

/**
 * The database as Kysely's SQLite dialect sees it, with compiled statements kept for reuse. Kysely
 * prepares every query afresh, and preparing (parsing and planning the SQL) costs about as much as
 * running a small query: on the grant path, a dozen small queries, that is half the store's time.
 * SQLite re-prepares a kept statement by itself when the schema changes (a migration), so a kept
 * statement never runs against a stale plan. A statement still iterating (a streamed query) is
 * busy and cannot be shared: the caller then gets a fresh one.
 */
export function withStatementCache(database: BetterSqlite3.Database, capacity = DEFAULT_CAPACITY): SqliteDatabase {
  // A Map iterates in insertion order: re-inserting on use makes the first key the least recently used.
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => {
      statements.clear();
      database.close();
    },
    prepare: (sql: string): SqliteStatement => {
      const kept = statements.get(sql);
      if (kept !== undefined && !kept.busy) {
        statements.delete(sql);
        statements.set(sql, kept);
        return kept;
      }
      const statement = database.prepare(sql);
      if (kept === undefined) {
        if (statements.size >= capacity) statements.delete(statements.keys().next().value ?? '');
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}
