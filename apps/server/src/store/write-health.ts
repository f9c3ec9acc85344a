import { randomBytes } from 'node:crypto';
import {
  DeleteQueryNode,
  InsertQueryNode,
  MergeQueryNode,
  UpdateQueryNode,
  type CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type { Logger } from 'pino';
import type { Database } from './schema.js';
import { isStoreOutOfResources } from './store-unavailable.js';

/**
 * Whether this process's writes to the store are failing for want of room: a full disk (SQLite's
 * SQLITE_FULL or an I/O error, PostgreSQL's disk_full), or the database server out of memory.
 * Reads usually still work then, so a read cannot tell; readiness (health/health.routes.ts) asks this.
 *
 * Fed by every statement the store runs (see withWriteHealth): a write refused for that reason marks
 * writes as failing; a write that changed something (outside a transaction, or a transaction that
 * wrote and committed) marks them as working again. While they fail, readiness makes a small probe
 * write of its own (probeWrite), so a replica the load balancer took out of rotation, which gets no
 * requests to try, still notices when space is freed. Per process: each replica judges its own
 * writes, and the probe row is its own.
 */
export class StoreWriteHealth {
  #failingSince: number | null = null;
  #lastError: unknown = null;

  constructor(
    /** Names this process's probe row (the store's replica id). */
    readonly probeKey: string,
    private readonly logger?: Logger,
  ) {}

  /** Writes are failing: the last write that reached the store was refused for want of room. */
  get failing(): boolean {
    return this.#failingSince !== null;
  }

  /** The error of the write that started the failure (for a log line), or null while writes work. */
  get lastError(): unknown {
    return this.#failingSince === null ? null : this.#lastError;
  }

  /** A statement failed: counts only when the store is out of room (a busy lock or a bad query is not that). */
  failed(error: unknown): void {
    if (!isStoreOutOfResources(error)) return;
    this.#lastError = error;
    if (this.#failingSince !== null) return;
    this.#failingSince = Date.now();
    this.logger?.warn(
      { err: error },
      'store writes are failing (out of disk space or memory, or an I/O error): writes answer 503 and /readyz is not ready until a write succeeds; free space on the store',
    );
  }

  /** A write changed the store: writes work (again). */
  succeeded(): void {
    if (this.#failingSince === null) return;
    this.logger?.info({ failedForMs: Date.now() - this.#failingSince }, 'store writes succeed again');
    this.#failingSince = null;
    this.#lastError = null;
  }
}

/** How much the probe writes: a few pages, so that a store with no room at all cannot pass it. */
const PROBE_PADDING_BYTES = 8 * 1024;

/**
 * Writes this process's probe row (random bytes, which no store can compress away) and removes it
 * again: two small transactions, made only while writes are failing. Their outcome reaches the
 * health through the store like any other write's.
 */
export async function probeWrite(db: Kysely<Database>, health: StoreWriteHealth): Promise<void> {
  const row = {
    replica: health.probeKey,
    writtenAt: Date.now(),
    padding: randomBytes(PROBE_PADDING_BYTES).toString('base64'),
  };
  await db
    .insertInto('writeProbes')
    .values(row)
    .onConflict((conflict) =>
      conflict.column('replica').doUpdateSet({ writtenAt: row.writtenAt, padding: row.padding }),
    )
    .execute();
  await db.deleteFrom('writeProbes').where('replica', '=', health.probeKey).execute();
}

/** `dialect`, with every statement's outcome reported to `health`. */
export function withWriteHealth(dialect: Dialect, health: StoreWriteHealth): Dialect {
  return {
    createDriver: () => new WriteHealthDriver(dialect.createDriver(), health),
    createQueryCompiler: (): QueryCompiler => dialect.createQueryCompiler(),
    createAdapter: (): DialectAdapter => dialect.createAdapter(),
    // Kysely's Dialect interface types the argument as Kysely<any>.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    createIntrospector: (db: Kysely<any>): DatabaseIntrospector => dialect.createIntrospector(db),
  };
}

/** Whether a statement writes: an insert, update, delete or merge (raw SQL is not judged). */
function isWrite(query: CompiledQuery): boolean {
  const node = query.query;
  return InsertQueryNode.is(node) || UpdateQueryNode.is(node) || DeleteQueryNode.is(node) || MergeQueryNode.is(node);
}

/** Whether a write's result shows it changed something (rows counted, or rows returned by RETURNING). */
function changedSomething(result: QueryResult<unknown>): boolean {
  return (result.numAffectedRows ?? 0n) > 0n || result.rows.length > 0;
}

/** One connection as Kysely sees it, watched: the inner driver gets its own connection back. */
class WatchedConnection implements DatabaseConnection {
  /** In a transaction: whether it has written something, which only its commit makes true. */
  #wroteInTransaction: boolean | null = null;

  constructor(
    readonly inner: DatabaseConnection,
    private readonly health: StoreWriteHealth,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    let result: QueryResult<R>;
    try {
      result = await this.inner.executeQuery<R>(query);
    } catch (error) {
      this.health.failed(error);
      throw error;
    }
    if (isWrite(query) && changedSomething(result)) {
      if (this.#wroteInTransaction === null) this.health.succeeded();
      else this.#wroteInTransaction = true;
    }
    return result;
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }

  began(): void {
    this.#wroteInTransaction = false;
  }

  /** The transaction ended; true when it had written something. */
  ended(): boolean {
    const wrote = this.#wroteInTransaction === true;
    this.#wroteInTransaction = null;
    return wrote;
  }
}

class WriteHealthDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    private readonly health: StoreWriteHealth,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new WatchedConnection(await this.inner.acquireConnection(), this.health);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const watched = watchedConnection(connection);
    try {
      await this.inner.beginTransaction(watched.inner, settings);
    } catch (error) {
      this.health.failed(error);
      throw error;
    }
    watched.began();
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const watched = watchedConnection(connection);
    try {
      await this.inner.commitTransaction(watched.inner);
    } catch (error) {
      // Kysely rolls back next; what the transaction wrote is gone with it.
      watched.ended();
      this.health.failed(error);
      throw error;
    }
    if (watched.ended()) this.health.succeeded();
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const watched = watchedConnection(connection);
    watched.ended();
    await this.inner.rollbackTransaction(watched.inner);
  }

  savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return this.#onSavepoint('savepoint', connection, name, compile);
  }

  rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    return this.#onSavepoint('rollbackToSavepoint', connection, name, compile);
  }

  releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    return this.#onSavepoint('releaseSavepoint', connection, name, compile);
  }

  /** A savepoint statement, passed to the inner driver on its own connection. */
  async #onSavepoint(
    operation: 'savepoint' | 'rollbackToSavepoint' | 'releaseSavepoint',
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    if (this.inner[operation] === undefined) throw new Error('the store does not support savepoints');
    await this.inner[operation](watchedConnection(connection).inner, name, compile);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(watchedConnection(connection).inner);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

function watchedConnection(connection: DatabaseConnection): WatchedConnection {
  if (!(connection instanceof WatchedConnection)) throw new Error('not a connection of this store');
  return connection;
}
