import { sql, SqliteAdapter, type Kysely } from 'kysely';

/** The accounts whose names become unique per provider. */
const ACCOUNT_TABLES = ['users', 'admins'] as const;
type AccountTable = (typeof ACCOUNT_TABLES)[number];

/** How migration 0001 declared the name column (Kysely's spelling, as SQLite keeps it). */
const UNIQUE_NAME_COLUMN = '"user_name" text not null unique';
const NAME_COLUMN = '"user_name" text not null';

/**
 * OpenID Connect sign-in (issue 34): identities are namespaced by their provider (ASVS 6.8.1), so an
 * OpenID Connect `alice` is an account of her own beside a local or SAML `alice`, never merged with it.
 *
 * - `users.provider`, `admins.provider`: '' for Postern's own directory, where local, LDAP, SAML and
 *   API-key accounts keep sharing one name each (the spec's behaviour: SAML never takes over a local
 *   account); 'oidc' for accounts of the OpenID Connect provider. `user_name` is unique per provider
 *   instead of overall.
 * - `external_issuer`, `external_subject`: the provider's `iss` and `sub` an OpenID Connect account was
 *   bound to at its first sign-in (user names at a provider can be reassigned; `sub` cannot).
 * - `oidc_flows`: each sign-in started and not yet finished, so that any replica can finish it and
 *   each finishes once (SCALE-OUT.md 5).
 * - `oidc_sign_outs`: per session signed in through the provider, the RP-initiated logout URL (sealed:
 *   it carries the ID token as its hint).
 *
 * SQLite cannot drop a column's UNIQUE constraint, so there the two tables are rebuilt (SQLite's own
 * procedure: a new table, the rows copied, the old one dropped, the new one renamed) with foreign keys
 * off, so that dropping the old table does not cascade into sessions, groups and grants.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) {
    await withoutForeignKeys(db, async (trx) => {
      for (const table of ACCOUNT_TABLES) {
        await rebuildSqliteTable(trx, table, (create) => replaceOnce(create, UNIQUE_NAME_COLUMN, NAME_COLUMN));
      }
    });
  } else {
    for (const table of ACCOUNT_TABLES) {
      const constraint = await postgresNameUniqueConstraint(db, table);
      await sql`alter table ${sql.table(table)} drop constraint ${sql.id(constraint)}`.execute(db);
    }
  }
  for (const table of ACCOUNT_TABLES) {
    await db.schema
      .alterTable(table)
      .addColumn('provider', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
    await db.schema.alterTable(table).addColumn('external_issuer', 'text').execute();
    await db.schema.alterTable(table).addColumn('external_subject', 'text').execute();
    await db.schema
      .createIndex(`${table}_provider_user_name`)
      .on(table)
      .columns(['provider', 'user_name'])
      .unique()
      .execute();
  }

  await db.schema
    .createTable('oidc_flows')
    // SHA-256 of the `state` the browser carries to the provider and back; the state itself is not kept.
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('realm', 'text', (c) => c.notNull())
    .addColumn('nonce', 'text', (c) => c.notNull())
    // SHA-256 of the flow cookie set on the browser that started the sign-in.
    .addColumn('browser_hash', 'text', (c) => c.notNull())
    .addColumn('kiosk', 'boolean', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('oidc_flows_expires_at').on('oidc_flows').column('expires_at').execute();

  await db.schema
    .createTable('oidc_sign_outs')
    .addColumn('session_id', 'text', (c) => c.primaryKey())
    .addColumn('realm', 'text', (c) => c.notNull())
    .addColumn('end_session_url', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('oidc_sign_outs_expires_at').on('oidc_sign_outs').column('expires_at').execute();
}

/** Back to names unique overall; refused (the migration fails) while two providers share a name. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('oidc_sign_outs').execute();
  await db.schema.dropTable('oidc_flows').execute();
  for (const table of ACCOUNT_TABLES) {
    await db.schema.dropIndex(`${table}_provider_user_name`).execute();
    for (const column of ['external_subject', 'external_issuer', 'provider']) {
      await db.schema.alterTable(table).dropColumn(column).execute();
    }
  }
  if (isSqlite(db)) {
    await withoutForeignKeys(db, async (trx) => {
      for (const table of ACCOUNT_TABLES) {
        await rebuildSqliteTable(trx, table, (create) => replaceOnce(create, NAME_COLUMN, UNIQUE_NAME_COLUMN));
      }
    });
  } else {
    for (const table of ACCOUNT_TABLES) {
      await sql`alter table ${sql.table(table)} add unique (user_name)`.execute(db);
    }
  }
}

function isSqlite(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter;
}

/**
 * Runs `work` in a transaction with SQLite's foreign keys off, then checks that every reference still
 * resolves and turns them back on. The pragma is a no-op inside a transaction, so it is set around
 * one; migrations on SQLite run outside any (Kysely runs SQLite's DDL without a transaction).
 */
async function withoutForeignKeys(db: Kysely<unknown>, work: (trx: Kysely<unknown>) => Promise<void>): Promise<void> {
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await db.transaction().execute(async (trx) => {
      await work(trx);
      const broken = await sql<Record<string, unknown>>`pragma foreign_key_check`.execute(trx);
      if (broken.rows.length > 0) {
        throw new Error(`the rebuild left ${broken.rows.length} broken references: ${JSON.stringify(broken.rows[0])}`);
      }
    });
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}

/**
 * Rebuilds `table` from its own CREATE statement as `edit` changes it: same columns (in order), rows,
 * and indexes. Foreign keys of other tables name the table, not its storage, so they point at the new
 * one once it has the old name.
 */
async function rebuildSqliteTable(
  db: Kysely<unknown>,
  table: AccountTable,
  edit: (create: string) => string,
): Promise<void> {
  const created = await sql<{ sql: string }>`
    select sql from sqlite_master where type = 'table' and name = ${table}`.execute(db);
  const create = created.rows[0]?.sql;
  if (create === undefined) throw new Error(`no table ${table}`);
  const indexes = await sql<{ sql: string }>`
    select sql from sqlite_master where type = 'index' and tbl_name = ${table} and sql is not null`.execute(db);
  const columns = await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db);
  const columnList = columns.rows.map((column) => `"${column.name}"`).join(', ');
  const rebuilt = `${table}_rebuilt`;
  await sql.raw(replaceOnce(edit(create), `CREATE TABLE "${table}"`, `CREATE TABLE "${rebuilt}"`)).execute(db);
  await sql.raw(`insert into "${rebuilt}" (${columnList}) select ${columnList} from "${table}"`).execute(db);
  await sql.raw(`drop table "${table}"`).execute(db);
  await sql.raw(`alter table "${rebuilt}" rename to "${table}"`).execute(db);
  for (const index of indexes.rows) await sql.raw(index.sql).execute(db);
}

/** `text` with `from` replaced, which must occur exactly once (else the schema is not the one expected). */
function replaceOnce(text: string, from: string, to: string): string {
  const at = text.indexOf(from);
  if (at < 0 || text.indexOf(from, at + 1) >= 0) {
    throw new Error(`unexpected schema: ${JSON.stringify(from)} is not in it exactly once: ${text}`);
  }
  return text.slice(0, at) + to + text.slice(at + from.length);
}

/** The name of the UNIQUE constraint on `table`'s user_name alone, in the schema the store uses. */
async function postgresNameUniqueConstraint(db: Kysely<unknown>, table: AccountTable): Promise<string> {
  const found = await sql<{ name: string }>`
    select c.conname as name
      from pg_constraint c
      join pg_class t on t.oid = c.conrelid
      join pg_namespace n on n.oid = t.relnamespace
      join pg_attribute a on a.attrelid = t.oid and a.attnum = c.conkey[1]
     where c.contype = 'u' and t.relname = ${table} and n.nspname = current_schema()
       and array_length(c.conkey, 1) = 1 and a.attname = 'user_name'`.execute(db);
  const name = found.rows[0]?.name;
  if (name === undefined) throw new Error(`no unique constraint on ${table}.user_name`);
  return name;
}
