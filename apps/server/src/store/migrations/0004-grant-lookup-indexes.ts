import type { Kysely } from 'kysely';

/**
 * Ended grants stay for 30 days (grant-sweeper.ts), so the rows behind one session's knoc, or one
 * address on one knoc (an office address many people share), pile up. Every lookup on the grant
 * path asks for the running ones (ended_at is null) or the latest ended: with ended_at in the
 * index that is a seek, not a scan of the whole history.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('grants_session_acl_ended')
    .on('grants')
    .columns(['session_id', 'acl_id', 'ended_at'])
    .execute();
  await db.schema.createIndex('grants_acl_ip_ended').on('grants').columns(['acl_id', 'ip', 'ended_at']).execute();
  // The new indexes start with the old ones' columns, so they serve every lookup the old ones did.
  await db.schema.dropIndex('grants_session_id').execute();
  await db.schema.dropIndex('grants_acl_ip').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('grants_acl_ip').on('grants').columns(['acl_id', 'ip']).execute();
  await db.schema.createIndex('grants_session_id').on('grants').column('session_id').execute();
  await db.schema.dropIndex('grants_acl_ip_ended').execute();
  await db.schema.dropIndex('grants_session_acl_ended').execute();
}
