import type { Kysely } from 'kysely';

/** Accounts, sessions, the audit log and settings: what sign-in needs. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('admins')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('user_name', 'text', (c) => c.notNull().unique())
    .addColumn('auth_type', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text')
    .addColumn('ldap_dn', 'text')
    .addColumn('totp_enabled', 'boolean', (c) => c.notNull())
    .addColumn('totp_verified', 'boolean', (c) => c.notNull())
    .addColumn('totp_secret', 'text')
    .addColumn('login_enabled', 'boolean', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('last_login', 'bigint')
    .execute();

  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('user_name', 'text', (c) => c.notNull().unique())
    .addColumn('company', 'text', (c) => c.notNull())
    .addColumn('auth_type', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text')
    .addColumn('ldap_dn', 'text')
    .addColumn('duration_minutes', 'integer', (c) => c.notNull())
    .addColumn('session_limit', 'integer')
    .addColumn('totp_enabled', 'boolean', (c) => c.notNull())
    .addColumn('totp_verified', 'boolean', (c) => c.notNull())
    .addColumn('totp_secret', 'text')
    .addColumn('disabled', 'boolean', (c) => c.notNull())
    .addColumn('valid_until', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('last_login', 'bigint')
    .execute();

  await db.schema
    .createTable('user_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('ends_at', 'bigint', (c) => c.notNull())
    .addColumn('ended_at', 'bigint')
    .addColumn('end_reason', 'text')
    .addColumn('ip_address', 'text', (c) => c.notNull())
    .addColumn('user_agent', 'text', (c) => c.notNull())
    .addColumn('kiosk', 'boolean', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('user_sessions_user_id').on('user_sessions').column('user_id').execute();
  await db.schema.createIndex('user_sessions_ends_at').on('user_sessions').column('ends_at').execute();

  await db.schema
    .createTable('admin_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('admin_id', 'text', (c) => c.notNull().references('admins.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('ends_at', 'bigint', (c) => c.notNull())
    .addColumn('ended_at', 'bigint')
    .addColumn('end_reason', 'text')
    .addColumn('ip_address', 'text', (c) => c.notNull())
    .addColumn('user_agent', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('admin_sessions_admin_id').on('admin_sessions').column('admin_id').execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('detail', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_created_at').on('audit_log').column('created_at').execute();

  await db.schema
    .createTable('settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['settings', 'audit_log', 'admin_sessions', 'user_sessions', 'users', 'admins']) {
    await db.schema.dropTable(table).execute();
  }
}
