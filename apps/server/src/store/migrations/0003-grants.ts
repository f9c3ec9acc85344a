import type { Kysely } from 'kysely';

/**
 * The grant engine: agents, backends, the knoc columns that say how a knoc is enforced, grants and
 * the extra addresses a session reported through IP discovery.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('agents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    // SHA-256 of the token, for the connect check; the token itself only encrypted, to show it again.
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('token_secret', 'text', (c) => c.notNull())
    .addColumn('version', 'text')
    .addColumn('last_seen', 'bigint')
    .addColumn('external_ip', 'text')
    // JSON of the capabilities the agent reported in its last hello.
    .addColumn('capabilities', 'text')
    // Bumped for every message that changes the agent's desired state, so the agent can refuse a
    // stale one (see agents/agent-hub.ts).
    .addColumn('generation', 'bigint', (c) => c.notNull().defaultTo(0))
    // The id of the server connection holding the agent's socket, null while disconnected.
    .addColumn('connection_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('last_modified_by', 'text', (c) => c.notNull().defaultTo(''))
    .execute();

  await db.schema
    .createTable('backends')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    // No cascade: an agent cannot be deleted while backends are attached.
    .addColumn('agent_id', 'text', (c) => c.references('agents.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    // JSON of the type's fields; secret fields hold SecretBox ciphertexts.
    .addColumn('config', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('last_modified_by', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.createIndex('backends_agent_id').on('backends').column('agent_id').execute();

  await db.schema
    .alterTable('knocs')
    .addColumn('backend_id', 'text', (c) => c.references('backends.id').onDelete('cascade'))
    .execute();
  for (const [column, fallback] of [
    ['click_to_grant', true],
    ['cgnat_open', false],
    ['auto_browse_users', false],
  ] as const) {
    await db.schema
      .alterTable('knocs')
      .addColumn(column, 'boolean', (c) => c.notNull().defaultTo(fallback))
      .execute();
  }
  // Seconds; 0 means no limit beyond the session.
  await db.schema
    .alterTable('knocs')
    .addColumn('maximum_grant_duration', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  for (const column of ['ip_exclusions', 'grant_type', 'config']) {
    await db.schema
      .alterTable('knocs')
      .addColumn(column, 'text', (c) => c.notNull().defaultTo('{}'))
      .execute();
  }
  await db.schema
    .alterTable('knocs')
    .addColumn('uri_token', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.createIndex('knocs_backend_id').on('knocs').column('backend_id').execute();

  // One address allowed on one knoc for one session, until expires_at. A row stays after it ends
  // (ended_at set) so the user sees Revoking/Revoked and the agent's answer can still be recorded.
  await db.schema
    .createTable('grants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('acl_id', 'text', (c) => c.notNull().references('knocs.id').onDelete('cascade'))
    // No foreign keys on the session and user: a grant row outlives them as a record, and ending a
    // session ends its grants in the same transaction (auth/sessions.repo.ts). Null session: an
    // admin's break-glass grant.
    .addColumn('session_id', 'text')
    .addColumn('user_id', 'text')
    .addColumn('user_name', 'text', (c) => c.notNull())
    .addColumn('ip', 'text', (c) => c.notNull())
    // Where the address came from: 'user' (the caller's address, moves when it changes),
    // 'discovered' (CGNATOpen extra address), 'fixed' (GrantType specifiedIps) or 'admin'.
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('error', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('ended_at', 'bigint')
    .addColumn('end_reason', 'text')
    .execute();
  await db.schema.createIndex('grants_acl_ip').on('grants').columns(['acl_id', 'ip']).execute();
  await db.schema.createIndex('grants_session_id').on('grants').column('session_id').execute();
  await db.schema.createIndex('grants_expires_at').on('grants').column('expires_at').execute();

  // Addresses a session's browser discovered through the IP discovery ports (POST /api/log_ips).
  await db.schema
    .createTable('session_ips')
    .addColumn('session_id', 'text', (c) => c.notNull().references('user_sessions.id').onDelete('cascade'))
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('port', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('session_ips_pk', ['session_id', 'ip'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('session_ips').execute();
  await db.schema.dropTable('grants').execute();
  await db.schema.dropIndex('knocs_backend_id').execute();
  for (const column of [
    'uri_token',
    'config',
    'grant_type',
    'ip_exclusions',
    'maximum_grant_duration',
    'auto_browse_users',
    'cgnat_open',
    'click_to_grant',
    'backend_id',
  ]) {
    await db.schema.alterTable('knocs').dropColumn(column).execute();
  }
  await db.schema.dropTable('backends').execute();
  await db.schema.dropTable('agents').execute();
}
