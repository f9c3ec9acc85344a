import { sql, type Kysely } from 'kysely';
import { formatIp, parseIp } from '@postern/protocol';
import type { Database } from '../store/schema.js';

/**
 * Brute-force protection, counted in the store so every replica shares it, one atomic statement per
 * key so concurrent attempts cannot lose counts. A sign-in attempt from an untrusted client (no valid
 * device cookie for the account, see device-cookie.ts) counts against three keys:
 *
 * - the account from this address (the pair): 5 failures in 15 minutes block the pair for 15
 *   minutes. A stranger guessing from elsewhere never blocks the owner's own address.
 * - the address: 20 failures in 15 minutes over any accounts block it for 15 minutes, so a spray over
 *   many accounts from one address stops quickly (20, not 5: an office behind NAT shares it).
 * - the account across all addresses: a ceiling that slows rather than bans (see ACCOUNT_CEILING).
 *
 * Addresses are IPv4 addresses and IPv6 /64 networks: one host usually owns a whole /64.
 *
 * A browser that presents a valid device cookie for the account is judged by that device cookie's own
 * key alone (DEVICE_POLICY), so strangers filling the account's keys never hold the owner back.
 */

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/** A fixed window: `maxFailures` within `windowMs` of the first block the key for `blockMs`. */
export interface WindowPolicy {
  kind: 'window';
  maxFailures: number;
  windowMs: number;
  blockMs: number;
}

/**
 * A leaky bucket (GCRA): it holds `burst` failures and drains one every `intervalMs`. While it is full,
 * attempts wait until one failure has drained, which is never longer than `intervalMs`.
 */
export interface CeilingPolicy {
  kind: 'ceiling';
  burst: number;
  intervalMs: number;
}

export type ThrottlePolicy = WindowPolicy | CeilingPolicy;

/** One account from one address (one IPv6 /64). */
export const PAIR_POLICY: WindowPolicy = {
  kind: 'window',
  maxFailures: 5,
  windowMs: 15 * MINUTE_MS,
  blockMs: 15 * MINUTE_MS,
};

/** One address (one IPv6 /64), whatever the accounts; API keys use it too, under keys of their own. */
export const ADDRESS_POLICY: WindowPolicy = {
  kind: 'window',
  maxFailures: 20,
  windowMs: 15 * MINUTE_MS,
  blockMs: 15 * MINUTE_MS,
};

/**
 * One account across every address: a burst of 40 failures, then one a minute, so no hour holds more
 * than 100 from untrusted clients (OWASP ASVS 2.2.1), which every attacker is who has not stolen one
 * of the owner's device cookies (a known browser's failures count on its own DEVICE_POLICY key only).
 * One address cannot fill it (its pair allows about 20 an hour, less than drains), so only an attack
 * from many addresses does, and then every untrusted client waits at most a minute per attempt: a
 * slowdown, never a lockout; the owner's known browsers do not wait at all. Attempts already past the
 * check when the bucket fills still count, so concurrent ones can overshoot it by a few (each replica
 * checks at most two passwords at once).
 */
export const ACCOUNT_CEILING: CeilingPolicy = { kind: 'ceiling', burst: 40, intervalMs: MINUTE_MS };

/**
 * One device cookie, a browser that signed in to its account before (device-cookie.ts): 5 failures in
 * 15 minutes lock that device cookie out for 15 minutes (OWASP's "lockout of the device cookie"). Its
 * sign-ins count against this key only, never against the account's pair, address or ceiling keys,
 * and are never held back by them: a stranger cannot lock out the owner's known browsers.
 */
export const DEVICE_POLICY: WindowPolicy = {
  kind: 'window',
  maxFailures: 5,
  windowMs: 15 * MINUTE_MS,
  blockMs: 15 * MINUTE_MS,
};

/** The most failures a ceiling lets through within any `spanMs`: the burst, plus what drains. */
export function ceilingMaximum(policy: CeilingPolicy, spanMs: number = HOUR_MS): number {
  return policy.burst + Math.floor(spanMs / policy.intervalMs);
}

/** A throttle key with the policy that governs it. */
export interface ThrottleKey {
  key: string;
  policy: ThrottlePolicy;
}

/** The keys one sign-in attempt counts against. */
export interface SignInKeys {
  /** The account from this address: blocks; a success clears it. */
  pair: ThrottleKey;
  /** The address, whatever the account: blocks. */
  address: ThrottleKey;
  /** The account from everywhere: slows; only time drains it. */
  account: ThrottleKey;
  all: readonly ThrottleKey[];
}

/**
 * The keys of an attempt on `userName` (existing or not, compared case-insensitively) from `address`.
 * Account keys carry no realm: the user form signs administrators in too, so both forms share one
 * budget for an administrator's name.
 */
export function signInKeys(userName: string, address: string): SignInKeys {
  const account = userName.trim().toLowerCase();
  const subject = throttleSubject(address);
  const pair = { key: `pair:${subject} ${account}`, policy: PAIR_POLICY };
  const byAddress = signInAddressKey(address);
  const byAccount = { key: `account:${account}`, policy: ACCOUNT_CEILING };
  return { pair, address: byAddress, account: byAccount, all: [pair, byAddress, byAccount] };
}

/**
 * The address's own key, whatever the account: a sign-in with an API key, which names no account
 * until the key is known, counts here as a wrong password does.
 */
export function signInAddressKey(address: string): ThrottleKey {
  return { key: `address:${throttleSubject(address)}`, policy: ADDRESS_POLICY };
}

/** The key of one device cookie's own budget, named by the cookie's random nonce. */
export function deviceKey(nonce: string): ThrottleKey {
  return { key: `device:${nonce}`, policy: DEVICE_POLICY };
}

/**
 * What an address is counted as, in canonical spelling: the IPv4 address (also when it arrives
 * IPv4-mapped), or the IPv6 /64 network, since one host usually owns a whole /64 and could otherwise
 * step through it. Anything else counts as itself: clientAddress gives only the empty text then, for a
 * caller whose address is unknown (a forwarded entry that is no address is refused before routing).
 */
export function throttleSubject(address: string): string {
  const parsed = parseIp(address);
  if (parsed === null) return address;
  if (parsed.family === 4) return formatIp(parsed);
  return formatIp({ family: 6, value: (parsed.value >> 64n) << 64n, prefix: 64 });
}

/** Milliseconds until every key lets attempts through again, or 0 when none holds them back. */
export async function blockedFor(db: Kysely<Database>, keys: readonly ThrottleKey[], now: number): Promise<number> {
  const windows: string[] = [];
  const ceilings = new Map<string, CeilingPolicy>();
  for (const { key, policy } of keys) {
    if (policy.kind === 'window') windows.push(key);
    else ceilings.set(key, policy);
  }
  const waits = [0];
  if (windows.length > 0) {
    const rows = await db
      .selectFrom('loginThrottle')
      .select('blockedUntil')
      .where('key', 'in', windows)
      .where('blockedUntil', '>', now)
      .execute();
    waits.push(...rows.map((row) => (row.blockedUntil ?? now) - now));
  }
  if (ceilings.size > 0) {
    const rows = await db
      .selectFrom('loginCeiling')
      .select(['key', 'drainedAt'])
      .where('key', 'in', [...ceilings.keys()])
      .execute();
    for (const row of rows) {
      const policy = ceilings.get(row.key);
      if (policy !== undefined) waits.push(fullUntil(row.drainedAt, policy) - now);
    }
  }
  return Math.max(...waits);
}

/** When a bucket that drains empty at `drainedAt` has room for one more failure. */
function fullUntil(drainedAt: number, policy: CeilingPolicy): number {
  return drainedAt - (policy.burst - 1) * policy.intervalMs;
}

/** What a failure changed: a window key started a block, or the ceiling started slowing. */
export interface FailureOutcome {
  blocked: boolean;
  slowed: boolean;
}

/** Counts one failure against each key, in one statement per key. */
export async function recordFailure(
  db: Kysely<Database>,
  keys: readonly ThrottleKey[],
  now: number,
): Promise<FailureOutcome> {
  const outcome: FailureOutcome = { blocked: false, slowed: false };
  for (const { key, policy } of keys) {
    if (policy.kind === 'window') {
      if (await countInWindow(db, key, policy, now)) outcome.blocked = true;
    } else if (await pourIntoBucket(db, key, policy, now)) {
      outcome.slowed = true;
    }
  }
  return outcome;
}

/** Returns true when this failure started a block. */
async function countInWindow(db: Kysely<Database>, key: string, policy: WindowPolicy, now: number): Promise<boolean> {
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
    .returning('failures')
    .executeTakeFirst();
  return result?.failures === policy.maxFailures;
}

/**
 * Adds one failure to the bucket, draining first what time has drained. Returns true for the first
 * failure that left it full since it was last empty, so a slowdown is audited once per episode even
 * when an attacker keeps it topped up for hours.
 */
async function pourIntoBucket(db: Kysely<Database>, key: string, policy: CeilingPolicy, now: number): Promise<boolean> {
  const step = policy.intervalMs;
  const fullAbove = now + (policy.burst - 1) * step;
  const drained = sql<number>`case when login_ceiling.drained_at > ${now} then login_ceiling.drained_at + ${step} else ${now + step} end`;
  const fullAfterOne = policy.burst <= 1 ? 1 : 0;
  const result = await db
    .insertInto('loginCeiling')
    .values({ key, drainedAt: now + step, slowedFailures: fullAfterOne })
    .onConflict((oc) =>
      oc.column('key').doUpdateSet({
        drainedAt: drained,
        slowedFailures: sql<number>`case
          when login_ceiling.drained_at <= ${now} then ${fullAfterOne}
          when ${drained} > ${fullAbove} then login_ceiling.slowed_failures + 1
          else login_ceiling.slowed_failures end`,
      }),
    )
    .returning(['drainedAt', 'slowedFailures'])
    .executeTakeFirst();
  // The count stays at 1 through failures that do not fill the bucket; only one that does counts.
  return result !== undefined && result.drainedAt > fullAbove && result.slowedFailures === 1;
}

/** Forgets a key's failures: after a success, its account-and-address pair. */
export async function clearFailures(db: Kysely<Database>, key: ThrottleKey): Promise<void> {
  if (key.policy.kind === 'window') await db.deleteFrom('loginThrottle').where('key', '=', key.key).execute();
  else await db.deleteFrom('loginCeiling').where('key', '=', key.key).execute();
}

/** Removes rows that no longer hold anything back or count anything; the sweeper calls it. */
export async function pruneThrottle(db: Kysely<Database>, now: number): Promise<void> {
  const oldest = now - Math.max(PAIR_POLICY.windowMs, ADDRESS_POLICY.windowMs, DEVICE_POLICY.windowMs);
  await db
    .deleteFrom('loginThrottle')
    .where('windowStartedAt', '<', oldest)
    .where((eb) => eb.or([eb('blockedUntil', 'is', null), eb('blockedUntil', '<', now)]))
    .execute();
  await db.deleteFrom('loginCeiling').where('drainedAt', '<=', now).execute();
}
