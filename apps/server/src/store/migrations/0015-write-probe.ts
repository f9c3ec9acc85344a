import type { Kysely } from 'kysely';

/**
 * `write_probes`: while this process's writes are failing (a full disk), readiness writes a row here
 * and removes it again, to notice when space is freed even with no request to try
 * (store/write-health.ts). One row per process, keyed by its replica id, and gone again at once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('write_probes')
    .addColumn('replica', 'text', (column) => column.primaryKey())
    .addColumn('written_at', 'bigint', (column) => column.notNull())
    // Random base64: a few pages that no store can compress away.
    .addColumn('padding', 'text', (column) => column.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('write_probes').execute();
}
