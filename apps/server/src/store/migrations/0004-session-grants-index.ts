import type { Kysely } from 'kysely';

/**
 * A session's grants on one knoc, running or recently ended, are read on every grant, revoke and
 * status call. The session index alone makes that a scan of the session's whole history, which a
 * long session that grants and revokes often makes longer with every click.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('grants_session_acl_ended')
    .on('grants')
    .columns(['session_id', 'acl_id', 'ended_at'])
    .execute();
  // The new index starts with session_id, so it serves every lookup by session the old one did.
  await db.schema.dropIndex('grants_session_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('grants_session_id').on('grants').column('session_id').execute();
  await db.schema.dropIndex('grants_session_acl_ended').execute();
}
