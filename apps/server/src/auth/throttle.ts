import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema.js';

const MINUTE_MS = 60_000;

/** How many failures within a window block a key, and for how long. */
export interface ThrottlePolicy {
  maxFailures: number;
  windowMs: number;
  blockMs: number;
}

/**
 * Per account: five failures in fifteen minutes lock it for fifteen minutes. Per address: twenty,
 * so one office behind NAT is not locked out by a colleague's typos, while a spray across many
 * accounts from one address still stops quickly.
 */
export const ACCOUNT_POLICY: ThrottlePolicy = { maxFailures: 5, windowMs: 15 * MINUTE_MS, blockMs: 15 * MINUTE_MS };
export const ADDRESS_POLICY: ThrottlePolicy = { maxFailures: 20, windowMs: 15 * MINUTE_MS, blockMs: 15 * MINUTE_MS };

/** A throttle key with the policy that governs it. */
export interface ThrottleKey {
  key: string;
  policy: ThrottlePolicy;
}

/** The keys one sign-in attempt counts against: the account tried (existing or not) and the address. */
export function signInKeys(realm: 'user' | 'admin', userName: string, address: string): ThrottleKey[] {
  return [
    { key: `account:${realm}:${userName.trim().toLowerCase()}`, policy: ACCOUNT_POLICY },
    { key: `address:${address}`, policy: ADDRESS_POLICY },
  ];
}

/** Milliseconds until every key is free again, or 0 when none is blocked. */
export async function blockedFor(db: Kysely<Database>, keys: readonly ThrottleKey[], now: number): Promise<number> {
  if (keys.length === 0) return 0;
  const rows = await db
    .selectFrom('loginThrottle')
    .select('blockedUntil')
    .where(
      'key',
      'in',
      keys.map((k) => k.key),
    )
    .where('blockedUntil', '>', now)
    .execute();
  return Math.max(0, ...rows.map((row) => (row.blockedUntil ?? now) - now));
}

/**
 * Counts one failure against each key, in one statement per key so concurrent attempts on several
 * replicas cannot lose counts. Returns true when this failure started a block on any key.
 */
export async function recordFailure(db: Kysely<Database>, keys: readonly ThrottleKey[], now: number): Promise<boolean> {
  let startedBlock = false;
  for (const { key, policy } of keys) {
    const windowStart = now - policy.windowMs;
    // A failure after the window has passed starts a new window at 1; otherwise it adds one.
    const nextFailures = sql<number>`case when login_throttle.window_started_at <= ${windowStart} then 1 else login_throttle.failures + 1 end`;
    const result = await db
      .insertInto('loginThrottle')
      .values({
        key,
        failures: 1,
        windowStartedAt: now,
        blockedUntil: policy.maxFailures <= 1 ? now + policy.blockMs : null,
      })
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({
          failures: nextFailures,
          windowStartedAt: sql<number>`case when login_throttle.window_started_at <= ${windowStart} then ${now} else login_throttle.window_started_at end`,
          blockedUntil: sql<
            number | null
          >`case when ${nextFailures} >= ${policy.maxFailures} then ${now + policy.blockMs} else login_throttle.blocked_until end`,
        }),
      )
      .returning(['failures', 'blockedUntil'])
      .executeTakeFirst();
    if (result !== undefined && result.failures === policy.maxFailures) startedBlock = true;
  }
  return startedBlock;
}

/** Forgets an account's failures after it signed in (its address keeps its count). */
export async function clearFailures(db: Kysely<Database>, key: ThrottleKey): Promise<void> {
  await db.deleteFrom('loginThrottle').where('key', '=', key.key).execute();
}

/** Removes rows whose window and block are both over; the sweeper calls it. */
export async function pruneThrottle(db: Kysely<Database>, now: number): Promise<void> {
  const oldest = now - Math.max(ACCOUNT_POLICY.windowMs, ADDRESS_POLICY.windowMs);
  await db
    .deleteFrom('loginThrottle')
    .where('windowStartedAt', '<', oldest)
    .where((eb) => eb.or([eb('blockedUntil', 'is', null), eb('blockedUntil', '<', now)]))
    .execute();
}
