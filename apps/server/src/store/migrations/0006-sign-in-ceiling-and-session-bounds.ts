import { sql, type Kysely } from 'kysely';

/**
 * The longest session, in minutes and in milliseconds: one year (USER_SESSION_MINUTES_MAX when this
 * migration was written). Literal on purpose: a migration must do the same thing forever, even if the
 * constant changes later.
 */
const MAX_SESSION_MINUTES = 525_600;
const MAX_SESSION_MS = MAX_SESSION_MINUTES * 60_000;

/**
 * Two changes that came with bounding sign-in:
 *
 * - The per-account ceiling on failed sign-ins (a leaky bucket per account, auth/throttle.ts) gets a
 *   table of its own. The old per-account lock rows ('account:user:…', 'account:admin:…') are
 *   dropped: accounts are no longer locked, only an account tried from one address is.
 * - A user's Duration had no upper bound, so stores in the field may hold sessions ending thousands
 *   of years from now, or beyond the last date JavaScript can write (which made every session list
 *   fail). Durations are clamped to one year, and session ends and grant expiries to one year after
 *   they started, which is the most the bounded Duration can give.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('login_ceiling')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('drained_at', 'bigint', (c) => c.notNull())
    .addColumn('slowed_failures', 'integer', (c) => c.notNull())
    .execute();
  await sql`delete from login_throttle where key like 'account:%'`.execute(db);

  await sql`update users set duration_minutes = ${MAX_SESSION_MINUTES} where duration_minutes > ${MAX_SESSION_MINUTES}`.execute(
    db,
  );
  await sql`update user_sessions set ends_at = created_at + ${MAX_SESSION_MS} where ends_at > created_at + ${MAX_SESSION_MS}`.execute(
    db,
  );
  await sql`update grants set expires_at = created_at + ${MAX_SESSION_MS} where expires_at > created_at + ${MAX_SESSION_MS}`.execute(
    db,
  );
}

/** Drops the ceiling table; the clamped durations and dates stay clamped (they were unusable). */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('login_ceiling').execute();
}
