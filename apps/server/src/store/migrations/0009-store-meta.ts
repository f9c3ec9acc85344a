import type { Kysely } from 'kysely';

/**
 * Facts about the store itself, one row each. The first is the secret key check (see
 * secrets/store-secret-key.ts): a value sealed with the key the store's secrets are sealed with, so a
 * server started with a lost or wrong key refuses to start instead of sealing new secrets over
 * unreadable ones.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('store_meta')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('store_meta').execute();
}
