import type { Kysely } from 'kysely';

/**
 * Second-factor failures get a counter of their own. They used to count on the password's
 * per-account-and-address counter, which a correct password clears: re-entering the password every
 * few guesses allowed guessing codes without end. This counter is per account name (users and
 * administrators alike, so the two sign-in forms share it) and only a completed sign-in clears it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('second_factor_failures')
    .addColumn('account', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('last_failed_at', 'bigint', (c) => c.notNull())
    .addColumn('blocked_until', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('second_factor_failures').execute();
}
