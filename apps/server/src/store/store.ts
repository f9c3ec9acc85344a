import type BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { CamelCasePlugin, Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import type { Logger } from 'pino';
import { ConfigError } from '../config/config-error.js';
import type { PosternConfig } from '../config/config.js';
import type { Database } from './schema.js';
import { loadSqliteDriver } from './sqlite-driver.js';
import { kyselySqliteDatabase } from './sqlite-database.js';

export type StoreDialect = 'sqlite' | 'postgres';

/** An open store: the query builder plus what it runs on. */
export interface Store {
  db: Kysely<Database>;
  dialect: StoreDialect;
  /** Where the store is, safe to print (no password). */
  description: string;
  close(): Promise<void>;
}

export interface OpenStoreOptions {
  logger?: Logger;
  /** PostgreSQL only: the schema to use instead of `public` (tests isolate themselves with it). */
  postgresSchema?: string;
}

/** How long start-up waits for PostgreSQL before it gives up with a clear message. */
const POSTGRES_CONNECT_TIMEOUT_MS = 5_000;
/** How long a SQLite writer waits for a lock held by another connection before failing. */
const SQLITE_BUSY_TIMEOUT_MS = 5_000;
const PG_INT8_OID = 20;

export async function openStore(location: PosternConfig['store'], options: OpenStoreOptions = {}): Promise<Store> {
  return location.kind === 'sqlite' ? openSqlite(location.file) : openPostgres(location.url, options);
}

function openSqlite(file: string): Store {
  const Database = loadSqliteDriver();
  let database: BetterSqlite3.Database;
  try {
    database = new Database(file);
    database.pragma('journal_mode = WAL');
    database.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    database.pragma('foreign_keys = ON');
    // WAL with NORMAL is durable across application crashes and far faster than FULL.
    database.pragma('synchronous = NORMAL');
  } catch (error) {
    throw new ConfigError('POSTERN_DATA_DIR', `cannot open the store ${file} (${describe(error)})`);
  }
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: kyselySqliteDatabase(database) }),
    plugins: [new CamelCasePlugin()],
  });
  return { db, dialect: 'sqlite', description: `SQLite ${file}`, close: () => db.destroy() };
}

async function openPostgres(url: string, options: OpenStoreOptions): Promise<Store> {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: POSTGRES_CONNECT_TIMEOUT_MS,
    // Instants are epoch milliseconds in int8 columns; pg would hand them over as strings.
    types: { getTypeParser: parserWithNumericInt8 },
    ...(options.postgresSchema === undefined ? {} : { options: `-c search_path=${options.postgresSchema}` }),
  });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', (error) => options.logger?.warn({ err: error }, 'PostgreSQL connection lost'));
  const description = `PostgreSQL ${describeUrl(url)}`;
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), plugins: [new CamelCasePlugin()] });
  try {
    await sql`select 1`.execute(db);
  } catch (error) {
    await db.destroy();
    throw new ConfigError('DATABASE_URL', `cannot connect to ${description} (${describe(error)})`);
  }
  return { db, dialect: 'postgres', description, close: () => db.destroy() };
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
