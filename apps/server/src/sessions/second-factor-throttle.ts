import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../store/schema.js';

/**
 * Guessing second-factor codes. A code has a million values and three are accepted at any moment
 * (one step either side), so unthrottled guessing finds one within hours. Codes count on their own
 * counter, per account name: never on the password's counters, which a correct password clears, and
 * never per address, which an attacker rotates. Only a completed sign-in (both factors) or an
 * administrator resetting the account's 2FA clears it; time alone never does.
 *
 * An attempt is counted before its code is checked, in one statement that also refuses it while the
 * account waits, so concurrent guesses cannot all slip through before the first failure is written.
 */
export interface SecondFactorPolicy {
  /** Attempts that cost no waiting: a person mistyping a code or two. */
  freeAttempts: number;
  /** The wait after the first attempt past the free ones; each further attempt doubles it. */
  firstDelayMs: number;
  /** From this attempt on, the account gets one attempt per `stopMs`: guessing has stopped. */
  stopAt: number;
  stopMs: number;
}

const SECOND_MS = 1_000;
const HOUR_MS = 3_600_000;

/**
 * Three free attempts, then 1, 2, 4 … 64 seconds between attempts, then one a day from the tenth
 * (NIST SP 800-63B allows at most 100 consecutive failures). An attacker who has the password gets
 * about 375 guesses in a year, each with three chances in a million: under 1 in 800, and the stop is
 * audited so an administrator can act long before. The owner, who reads the code off their phone,
 * never waits.
 */
export const SECOND_FACTOR_POLICY: SecondFactorPolicy = {
  freeAttempts: 3,
  firstDelayMs: SECOND_MS,
  stopAt: 10,
  stopMs: 24 * HOUR_MS,
};

/** How long the account waits after its `attempts`-th counted attempt. */
export function waitAfterAttempt(policy: SecondFactorPolicy, attempts: number): number {
  if (attempts < policy.freeAttempts) return 0;
  if (attempts >= policy.stopAt) return policy.stopMs;
  return policy.firstDelayMs * 2 ** (attempts - policy.freeAttempts);
}

export type SecondFactorAttempt =
  /** The code may be checked; `attempt` counts attempts since the last completed sign-in, this one included. */
  { allowed: true; attempt: number; stopsGuessing: boolean } | { allowed: false; retryAfterMs: number };

/** The counter's key: the account name as typed on either form, compared case-insensitively. */
function secondFactorAccount(userName: string): string {
  return userName.trim().toLowerCase();
}

/**
 * Counts an attempt on `userName`'s second factor, unless the account is waiting: then nothing is
 * counted and the answer says how long it waits.
 */
export async function beginSecondFactorAttempt(
  db: Kysely<Database>,
  userName: string,
  now: number,
  policy: SecondFactorPolicy = SECOND_FACTOR_POLICY,
): Promise<SecondFactorAttempt> {
  const account = secondFactorAccount(userName);
  const attempts = sql<number>`second_factor_failures.failures + 1`;
  const counted = await db
    .insertInto('secondFactorFailures')
    .values({ account, failures: 1, lastFailedAt: now, blockedUntil: now + waitAfterAttempt(policy, 1) })
    .onConflict((oc) =>
      oc
        .column('account')
        .doUpdateSet({ failures: attempts, lastFailedAt: now, blockedUntil: blockedUntilSql(policy, attempts, now) })
        .where(sql<number>`second_factor_failures.blocked_until`, '<=', now),
    )
    .returning('failures')
    .executeTakeFirst();
  if (counted !== undefined) {
    return { allowed: true, attempt: counted.failures, stopsGuessing: counted.failures === policy.stopAt };
  }
  const waiting = await db
    .selectFrom('secondFactorFailures')
    .select('blockedUntil')
    .where('account', '=', account)
    .executeTakeFirst();
  // Cleared between the two statements (the owner just signed in): a moment's wait is the honest answer.
  return { allowed: false, retryAfterMs: Math.max(SECOND_MS, (waiting?.blockedUntil ?? now) - now) };
}

/** A sign-in completed with both factors, or an administrator reset the account's 2FA. */
export async function clearSecondFactorFailures(db: Kysely<Database>, userName: string): Promise<void> {
  await db.deleteFrom('secondFactorFailures').where('account', '=', secondFactorAccount(userName)).execute();
}

/**
 * `now` plus the wait after the `attempts`-th attempt, as SQL, so counting and blocking are one
 * statement. Each branch is cast: PostgreSQL cannot type a CASE whose branches are all parameters.
 */
function blockedUntilSql(policy: SecondFactorPolicy, attempts: RawBuilder<number>, now: number): RawBuilder<number> {
  const until = (attempt: number) => sql`cast(${now + waitAfterAttempt(policy, attempt)} as bigint)`;
  const stepped = [];
  for (let attempt = policy.freeAttempts; attempt < policy.stopAt; attempt += 1) {
    stepped.push(sql`when ${attempts} = ${attempt} then ${until(attempt)}`);
  }
  return sql<number>`case when ${attempts} >= ${policy.stopAt} then ${until(policy.stopAt)} ${sql.join(stepped, sql` `)} else ${until(0)} end`;
}
