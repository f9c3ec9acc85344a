import type { Kysely } from 'kysely';

/**
 * Second factors, session stages, the directory (knocs as far as memberships need them, groups,
 * memberships, API keys), sign-in throttling and SAML replay protection.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['users', 'admins']) {
    // The secret being enrolled lives apart from the confirmed one until a code from it is verified.
    await db.schema.alterTable(table).addColumn('totp_pending_secret', 'text').execute();
    // The last accepted 30-second step, so each code is accepted once.
    await db.schema.alterTable(table).addColumn('totp_last_step', 'bigint').execute();
  }
  await db.schema
    .alterTable('admins')
    .addColumn('totp_deferrals', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  for (const table of ['user_sessions', 'admin_sessions']) {
    // 'active', or 'totp' / 'totp-enrol' while a sign-in waits for its second factor.
    await db.schema
      .alterTable(table)
      .addColumn('stage', 'text', (c) => c.notNull().defaultTo('active'))
      .execute();
  }

  // The knoc rows memberships point at; the grant engine adds its columns in a later migration.
  await db.schema
    .createTable('knocs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('icon', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('category', 'text', (c) => c.notNull().defaultTo('Default'))
    .addColumn('parent_id', 'text', (c) => c.references('knocs.id').onDelete('cascade'))
    .addColumn('hide_from_admins', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('hide_from_users', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('last_modified_by', 'text', (c) => c.notNull().defaultTo(''))
    .execute();

  await db.schema
    .createTable('user_acls')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('acl_id', 'text', (c) => c.notNull().references('knocs.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('user_acls_pk', ['user_id', 'acl_id'])
    .execute();
  await db.schema.createIndex('user_acls_acl_id').on('user_acls').column('acl_id').execute();

  await db.schema
    .createTable('groups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('group_users')
    .addColumn('group_id', 'text', (c) => c.notNull().references('groups.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('group_users_pk', ['group_id', 'user_id'])
    .execute();
  await db.schema.createIndex('group_users_user_id').on('group_users').column('user_id').execute();
  await db.schema
    .createTable('group_acls')
    .addColumn('group_id', 'text', (c) => c.notNull().references('groups.id').onDelete('cascade'))
    .addColumn('acl_id', 'text', (c) => c.notNull().references('knocs.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('group_acls_pk', ['group_id', 'acl_id'])
    .execute();
  await db.schema.createIndex('group_acls_acl_id').on('group_acls').column('acl_id').execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    // SHA-256 of the whole key; the key itself is shown once and never stored.
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('allowed_from', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .execute();

  // Failed sign-ins per account and per address, shared by every replica through the store.
  await db.schema
    .createTable('login_throttle')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('window_started_at', 'bigint', (c) => c.notNull())
    .addColumn('blocked_until', 'bigint')
    .execute();

  // SAML: requests we sent (InResponseTo) and assertions we accepted (replay), on every replica.
  await db.schema
    .createTable('saml_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('realm', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('saml_assertions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'saml_assertions',
    'saml_requests',
    'login_throttle',
    'api_keys',
    'group_acls',
    'group_users',
    'groups',
    'user_acls',
    'knocs',
  ]) {
    await db.schema.dropTable(table).execute();
  }
  for (const table of ['user_sessions', 'admin_sessions']) {
    await db.schema.alterTable(table).dropColumn('stage').execute();
  }
  await db.schema.alterTable('admins').dropColumn('totp_deferrals').execute();
  for (const table of ['users', 'admins']) {
    await db.schema.alterTable(table).dropColumn('totp_last_step').execute();
    await db.schema.alterTable(table).dropColumn('totp_pending_secret').execute();
  }
}
