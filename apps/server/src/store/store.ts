import { randomBytes } from 'node:crypto';
import type BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { CamelCasePlugin, Kysely, PostgresDialect, sql } from 'kysely';
import type { Logger } from 'pino';
import { ConfigError } from '../config/config-error.js';
import { createPrivateFileIfMissing } from '../config/private-files.js';
import type { PosternConfig } from '../config/config.js';
import type { Database } from './schema.js';
import { loadSqliteDriver } from './sqlite-driver.js';
import { kyselySqliteDatabase, type CachedSqliteDatabase } from './sqlite-database.js';
import { LockAwareSqliteDialect, type SqliteConnections } from './sqlite-dialect.js';
import { StoreWriteHealth, withWriteHealth } from './write-health.js';

export type StoreDialect = 'sqlite' | 'postgres';

/** An open store: the query builder plus what it runs on. */
export interface Store {
  db: Kysely<Database>;
  dialect: StoreDialect;
  /** Where the store is, safe to print (no password). */
  description: string;
  /**
   * This process among the servers sharing the store. On PostgreSQL its connections carry it as
   * their application_name, which the store's doorbells name as the writer (cluster/).
   */
  replicaId: string;
  /** Whether this process's writes are failing for want of room (a full disk): readiness asks it. */
  writeHealth: StoreWriteHealth;
  /** PostgreSQL only: a connection of its own, outside the pool (the change listener's). */
  openDedicatedClient?: () => pg.Client;
  close(): Promise<void>;
}

export interface OpenStoreOptions {
  logger?: Logger;
  /** PostgreSQL only: the schema to use instead of `public` (tests isolate themselves with it). */
  postgresSchema?: string;
}

/** How long start-up waits for PostgreSQL before it gives up with a clear message. */
const POSTGRES_CONNECT_TIMEOUT_MS = 5_000;
/**
 * How long a SQLite write waits for a lock held outside this process (an operator's sqlite3 shell,
 * a backup, the CLI) before the request fails with 503 and Retry-After: long enough to ride out
 * the short locks of a backup or a CLI command, short enough that a client is told promptly.
 */
export const SQLITE_LOCK_WAIT_MS = 1_000;
const PG_INT8_OID = 20;
/**
 * How Postern's connections name themselves to PostgreSQL (pg_stat_activity): `postern-<replica>`,
 * one name per process. A restore looks for them to refuse while servers are running; the store's
 * doorbells name the writer by it.
 */
export const POSTGRES_APPLICATION_NAME = 'postern';

export async function openStore(location: PosternConfig['store'], options: OpenStoreOptions = {}): Promise<Store> {
  const replicaId = `${POSTGRES_APPLICATION_NAME}-${randomBytes(6).toString('hex')}`;
  const writeHealth = new StoreWriteHealth(replicaId, options.logger);
  return location.kind === 'sqlite'
    ? openSqlite(location.file, replicaId, writeHealth)
    : openPostgres(location.url, replicaId, writeHealth, options);
}

async function openSqlite(file: string, replicaId: string, writeHealth: StoreWriteHealth): Promise<Store> {
  const connections = openSqliteConnections(file);
  const db = new Kysely<Database>({
    dialect: withWriteHealth(
      new LockAwareSqliteDialect({ open: () => connections, lockWaitMs: SQLITE_LOCK_WAIT_MS }),
      writeHealth,
    ),
    plugins: [new CamelCasePlugin()],
  });
  // Kysely starts its driver at the first query, and only a started driver is closed by destroy():
  // start it now, so the connections are closed even if the store is closed unused.
  await sql`select 1`.execute(db);
  return {
    db,
    dialect: 'sqlite',
    description: `SQLite ${file}`,
    replicaId,
    writeHealth,
    close: () => db.destroy(),
  };
}

/** Whether `file` names a private in-memory database, which a second connection would not share. */
function isInMemory(file: string): boolean {
  return file === ':memory:' || file === '';
}

/** The writer and (for a file) the reader connection; see LockAwareSqliteDialect for why two. */
function openSqliteConnections(file: string): SqliteConnections {
  const Database = loadSqliteDriver();
  const opened: BetterSqlite3.Database[] = [];
  const open = (role: 'writer' | 'reader'): CachedSqliteDatabase => {
    // Created private before SQLite sees it: its -wal and -shm then get the same mode (private-files.ts).
    if (!isInMemory(file)) createPrivateFileIfMissing(file);
    const database = new Database(file);
    opened.push(database);
    // Opening runs at start-up, before any request: here the driver's own 5 s busy timeout may
    // wait for a lock (switching a new file to WAL needs one) without stalling anyone.
    if (role === 'writer') database.pragma('journal_mode = WAL');
    // From now on SQLite never sleeps on a lock: the dialect waits on a timer instead.
    database.pragma('busy_timeout = 0');
    database.pragma('foreign_keys = ON');
    // WAL with NORMAL is durable across application crashes and far faster than FULL.
    database.pragma('synchronous = NORMAL');
    // A write routed to the reader by mistake would bypass the writer's turn-taking: refuse it.
    if (role === 'reader') database.pragma('query_only = ON');
    return kyselySqliteDatabase(database);
  };
  try {
    const writer = open('writer');
    return { writer, reader: isInMemory(file) ? null : open('reader') };
  } catch (error) {
    for (const database of opened) database.close();
    throw new ConfigError('POSTERN_DATA_DIR', `cannot open the store ${file} (${describe(error)})`);
  }
}

async function openPostgres(
  url: string,
  replicaId: string,
  writeHealth: StoreWriteHealth,
  options: OpenStoreOptions,
): Promise<Store> {
  const connection = {
    connectionString: url,
    connectionTimeoutMillis: POSTGRES_CONNECT_TIMEOUT_MS,
    // Instants are epoch milliseconds in int8 columns; pg would hand them over as strings.
    types: { getTypeParser: parserWithNumericInt8 },
    // The doorbells name the writer by it, so a server knows its own changes (migrations/0012).
    application_name: replicaId,
    ...(options.postgresSchema === undefined ? {} : { options: `-c search_path=${options.postgresSchema}` }),
  };
  const pool = new pg.Pool({ ...connection, max: 10 });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', (error) => options.logger?.warn({ err: error }, 'PostgreSQL connection lost'));
  const description = `PostgreSQL ${describeUrl(url)}`;
  const db = new Kysely<Database>({
    dialect: withWriteHealth(new PostgresDialect({ pool }), writeHealth),
    plugins: [new CamelCasePlugin()],
  });
  try {
    await sql`select 1`.execute(db);
  } catch (error) {
    await db.destroy();
    throw new ConfigError('DATABASE_URL', `cannot connect to ${description} (${describe(error)})`);
  }
  return {
    db,
    dialect: 'postgres',
    description,
    replicaId,
    writeHealth,
    openDedicatedClient: () => new pg.Client(connection),
    close: () => db.destroy(),
  };
}

function parserWithNumericInt8(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
  if (oid === PG_INT8_OID) return Number;
  return pg.types.getTypeParser(oid, format) as (value: string) => unknown;
}

/** host:port/database of a PostgreSQL URL, never its password. */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    // libpq's ?host= (a socket directory, say) wins over the URL's host part.
    const host = parsed.searchParams.get('host') ?? (parsed.hostname === '' ? 'localhost' : parsed.hostname);
    return `${host}:${parsed.port === '' ? '5432' : parsed.port}${parsed.pathname}`;
  } catch {
    return '(unparsable URL)';
  }
}

function describe(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return describe(error.errors[0]);
  if (error instanceof Error) {
    const code = 'code' in error && typeof error.code === 'string' ? error.code : null;
    return code === null ? error.message : `${code}: ${error.message}`;
  }
  return String(error);
}
