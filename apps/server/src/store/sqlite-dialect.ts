import {
  CompiledQuery,
  SelectQueryNode,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
} from 'kysely';
import { retryWhileLocked, type LockWaitOptions } from './lock-wait.js';
import type { CachedSqliteDatabase } from './sqlite-database.js';
import { WriterGate } from './writer-gate.js';

/** The two better-sqlite3 connections on one database file. */
export interface SqliteConnections {
  /** Runs every transaction and every statement that may write. */
  writer: CachedSqliteDatabase;
  /**
   * Runs read-only queries outside transactions. Null where a second connection would see another
   * database (in memory): then the writer runs everything, one task at a time.
   */
  reader: CachedSqliteDatabase | null;
}

export interface LockAwareSqliteDialectConfig {
  /** Opens the connections when Kysely first needs them. */
  open: () => SqliteConnections;
  /**
   * How long a write (or a transaction's BEGIN) may wait for a lock held outside this process,
   * counted from when it was asked for, before it fails with StoreBusyError.
   */
  lockWaitMs: number;
}

/**
 * Kysely's SQLite dialect (its adapter, compiler and introspector) on a driver that never lets a
 * lock held by another process stall the server.
 *
 * better-sqlite3 is synchronous, so SQLite's own busy timeout would sleep the event loop, and with
 * it every request, for as long as someone else holds the write lock. Kysely's SqliteDriver also
 * runs every query through one mutex, so even a wait that did not block the thread would hold up
 * the reads queued behind a write. Here instead:
 *
 * - Reads outside a transaction go to their own connection. In WAL mode a reader is not blocked by
 *   a writer, in this process or another, and sees everything committed.
 * - Writes and transactions take the writer connection in turn (WriterGate). SQLite's busy timeout
 *   is 0: a statement that meets a lock fails at once having changed nothing, and is retried on a
 *   timer (retryWhileLocked) until `lockWaitMs` has passed, then fails with StoreBusyError (503).
 * - Transactions start with BEGIN IMMEDIATE, taking the write lock up front (retried the same way),
 *   so no statement inside one can meet a lock: work done in a transaction never has to be undone
 *   because another process got in first.
 */
export class LockAwareSqliteDialect implements Dialect {
  constructor(private readonly config: LockAwareSqliteDialectConfig) {}

  createDriver(): Driver {
    return new LockAwareSqliteDriver(this.config);
  }

  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return new SqliteAdapter();
  }

  // Kysely's Dialect interface types the argument as Kysely<any>.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}

class LockAwareSqliteDriver implements Driver {
  #router: SqliteRouter | null = null;

  constructor(private readonly config: LockAwareSqliteDialectConfig) {}

  init(): Promise<void> {
    this.#router = new SqliteRouter(this.config.open(), this.config.lockWaitMs);
    return Promise.resolve();
  }

  acquireConnection(): Promise<DatabaseConnection> {
    if (this.#router === null) return Promise.reject(new Error('the SQLite driver is not initialised'));
    // Nothing is locked here: which connection a query needs is only known once it is seen.
    return Promise.resolve(new RoutedConnection(this.#router));
  }

  beginTransaction(connection: DatabaseConnection): Promise<void> {
    return routed(connection).begin();
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return routed(connection).commit();
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    routed(connection).rollback();
    return Promise.resolve();
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await routed(connection).executeQuery(CompiledQuery.raw(`savepoint ${quoteIdentifier(name)}`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await routed(connection).executeQuery(CompiledQuery.raw(`rollback to ${quoteIdentifier(name)}`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await routed(connection).executeQuery(CompiledQuery.raw(`release ${quoteIdentifier(name)}`));
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    routed(connection).release();
    return Promise.resolve();
  }

  destroy(): Promise<void> {
    this.#router?.close();
    this.#router = null;
    return Promise.resolve();
  }
}

/** Decides, statement by statement, which connection runs it and how long it may wait for locks. */
class SqliteRouter {
  readonly #gate = new WriterGate();
  readonly #writer: CachedSqliteDatabase;
  readonly #reader: CachedSqliteDatabase | null;
  readonly #waitingForOutsideLock = (waiting: boolean) => this.#gate.waitingForOutsideLock(waiting);

  constructor(
    connections: SqliteConnections,
    private readonly lockWaitMs: number,
  ) {
    this.#writer = connections.writer;
    this.#reader = connections.reader;
  }

  /** One statement outside any transaction: a read where it need not wait, anything else on the writer. */
  async execute(query: CompiledQuery): Promise<QueryResult<unknown>> {
    const wait = this.#lockWait();
    if (this.#reader !== null) {
      // Not the writer's holder: its waits must not be reported to the gate. The connection is chosen
      // at each attempt, since the writer may have been taken while this one waited.
      const read = await retryWhileLocked(() => readOnlyQuery(this.#readConnection(), query), {
        ...wait,
        waiting: undefined,
      });
      if (read !== null) return read;
    }
    await this.#gate.acquire(wait.deadline);
    try {
      return await retryWhileLocked(() => runQuery(this.#writer, query), wait);
    } finally {
      this.#gate.release();
    }
  }

  /** A statement inside this process's open transaction: the write lock is already ours. */
  executeInTransaction(query: CompiledQuery): QueryResult<unknown> {
    return runQuery(this.#writer, query);
  }

  /**
   * Streams a select on the writer, holding it until the stream ends: better-sqlite3 lets nothing
   * else use a connection while one of its statements is being iterated.
   */
  async *stream(query: CompiledQuery, inTransaction: boolean): AsyncIterableIterator<QueryResult<unknown>> {
    if (!SelectQueryNode.is(query.query)) throw new Error('SQLite can only stream select queries');
    if (!inTransaction) await this.#gate.acquire(this.#lockWait().deadline);
    try {
      for (const row of this.#writer.prepare(query.sql).iterate(query.parameters)) yield { rows: [row] };
    } finally {
      if (!inTransaction) this.#gate.release();
    }
  }

  /** Takes the writer and SQLite's write lock; on failure neither is held. */
  async begin(): Promise<void> {
    const wait = this.#lockWait();
    await this.#gate.acquire(wait.deadline);
    try {
      await retryWhileLocked(() => this.#writer.prepare('begin immediate').run([]), wait);
    } catch (error) {
      this.#gate.release();
      throw error;
    }
  }

  /**
   * Commits and hands the writer on. A COMMIT that meets a lock (possible outside WAL mode) leaves
   * the transaction open and may be retried; if it finally fails, Kysely rolls back.
   */
  async commit(): Promise<void> {
    await retryWhileLocked(() => this.#writer.prepare('commit').run([]), this.#lockWait());
    this.#gate.release();
  }

  /** Rolls back (unless SQLite already has, after an error) and hands the writer on. */
  rollback(): void {
    try {
      if (this.#writer.inTransaction) this.#writer.prepare('rollback').run([]);
    } finally {
      this.#gate.release();
    }
  }

  /**
   * Where a read outside a transaction runs: on the writer while nothing holds it, so one connection
   * keeps one warm page cache (SQLite discards a connection's cache whenever another connection has
   * written, so reads on the reader after every grant would start cold); on the reader while the
   * writer is held by a transaction or a write waiting for another process's lock, so reads never
   * wait for either.
   */
  #readConnection(): CachedSqliteDatabase {
    return this.#gate.held && this.#reader !== null ? this.#reader : this.#writer;
  }

  close(): void {
    this.#reader?.close();
    this.#writer.close();
  }

  /** The wait allowed to work asked for now; the gate hears when its holder waits for an outside lock. */
  #lockWait(): LockWaitOptions {
    const askedAt = performance.now();
    return { askedAt, deadline: askedAt + this.lockWaitMs, waiting: this.#waitingForOutsideLock };
  }
}

/** What Kysely holds as "a connection": it routes each query, and holds the writer while in a transaction. */
class RoutedConnection implements DatabaseConnection {
  #inTransaction = false;

  constructor(private readonly router: SqliteRouter) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (!this.#inTransaction) return (await this.router.execute(query)) as QueryResult<R>;
    return this.router.executeInTransaction(query) as QueryResult<R>;
  }

  streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    return this.router.stream(query, this.#inTransaction) as AsyncIterableIterator<QueryResult<R>>;
  }

  async begin(): Promise<void> {
    await this.router.begin();
    this.#inTransaction = true;
  }

  async commit(): Promise<void> {
    await this.router.commit();
    this.#inTransaction = false;
  }

  rollback(): void {
    if (!this.#inTransaction) return;
    this.#inTransaction = false;
    this.router.rollback();
  }

  /** Handed back to Kysely: a transaction still open here (it never should be) must not keep the writer. */
  release(): void {
    this.rollback();
  }
}

function routed(connection: DatabaseConnection): RoutedConnection {
  if (!(connection instanceof RoutedConnection)) throw new Error('not a connection of this SQLite driver');
  return connection;
}

/**
 * The query's result if it only reads and returns rows, or null when it must go to the writer.
 * Both conditions, because SQLite calls BEGIN, SAVEPOINT and `pragma x = y` read-only too: those
 * return no rows and must act on the writer's session, not the reader's.
 */
function readOnlyQuery(reader: CachedSqliteDatabase, { sql, parameters }: CompiledQuery): QueryResult<unknown> | null {
  const statement = reader.prepare(sql);
  if (!statement.readOnly || !statement.reader) return null;
  return { rows: statement.all(parameters) };
}

function runQuery(db: CachedSqliteDatabase, { sql, parameters }: CompiledQuery): QueryResult<unknown> {
  const statement = db.prepare(sql);
  if (statement.reader) return { rows: statement.all(parameters) };
  const { changes, lastInsertRowid } = statement.run(parameters);
  return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
