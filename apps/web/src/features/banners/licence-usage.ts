import { LICENCE_EXPIRY_WARNING_DAYS, USER_LIMIT_WARNING_PERCENT, type AdminStatus } from '@postern/protocol';

/**
 * How far the user count has gone past the licence (spec, administration §4 "Licence grace"):
 * - `grace`: over UserLimit but within the overage, less than USER_LIMIT_WARNING_PERCENT over;
 * - `warning`: still within the overage, but at least USER_LIMIT_WARNING_PERCENT over;
 * - `beyond`: more users than UserLimit plus the overage: users are denied access.
 * These follow the server's `userLimitState` (apps/server/src/licence/licence.ts), so the console
 * warns exactly when the server starts counting.
 */
export type UserLimitLevel = 'grace' | 'warning' | 'beyond';

/** What the user-limit banner and its usage bar show. */
export interface LicenceUsage {
  level: UserLimitLevel;
  /** UserLimit: users the licence covers. */
  licensed: number;
  /** UserLimitOverage: extra users the grace allowance admits. */
  grace: number;
  /** Users in the store now. */
  current: number;
  /** Seats left before licensed plus grace is used up (0 beyond it). */
  remaining: number;
  /** How far over the licensed limit, in whole percent (rounded down, as the server does). */
  overPercent: number;
  /** Share of the bar (licensed plus grace = 100) filled by users within the licence. */
  licensedPercent: number;
  /** Share of the bar filled by users in the grace allowance. */
  gracePercent: number;
}

/** One decimal is plenty for a bar and keeps aria-valuenow readable. */
const tenth = (value: number) => Math.round(value * 10) / 10;

/** The usage over the licence, or null when there is nothing to warn of: unlicensed or within the limit. */
export function licenceUsage(licensing: AdminStatus['Licensing'], userCount: number): LicenceUsage | null {
  if (!licensing.Licensed) return null;
  const licensed = licensing.UserLimit;
  const grace = licensing.UserLimitOverage;
  if (userCount <= licensed) return null;
  const over = userCount - licensed;
  const ceiling = licensed + grace;
  // A licence for 0 users is degenerate; any user is then "100% over" rather than a division by zero.
  const overPercent = licensed > 0 ? Math.floor((over * 100) / licensed) : 100;
  let level: UserLimitLevel = 'grace';
  if (userCount > ceiling) level = 'beyond';
  else if (over * 100 >= licensed * USER_LIMIT_WARNING_PERCENT) level = 'warning';
  const capacity = Math.max(ceiling, 1);
  return {
    level,
    licensed,
    grace,
    current: userCount,
    remaining: Math.max(0, ceiling - userCount),
    overPercent,
    licensedPercent: tenth((Math.min(userCount, licensed) / capacity) * 100),
    gracePercent: tenth((Math.min(over, grace) / capacity) * 100),
  };
}

const DAY_MS = 86_400_000;

/** The admin home's "licence expires soon" notice: days left (rounded up) and the expiry instant. */
export interface LicenceExpiryWarning {
  days: number;
  expires: string;
}

/**
 * Spec: the notice shows when not cloud and the licence expires within LICENCE_EXPIRY_WARNING_DAYS.
 * An expired licence is not "expiring": the server reports it unlicensed, which the banner area covers.
 */
export function licenceExpiryWarning(
  status: Pick<AdminStatus, 'Cloud' | 'Licensing'>,
  now: number,
): LicenceExpiryWarning | null {
  const { Licensed, Expires } = status.Licensing;
  if (status.Cloud || !Licensed || Expires === null) return null;
  const left = Date.parse(Expires) - now;
  if (Number.isNaN(left) || left <= 0 || left > LICENCE_EXPIRY_WARNING_DAYS * DAY_MS) return null;
  // Under a whole day left still reads "1 day", not "0 days".
  return { days: Math.ceil(left / DAY_MS), expires: Expires };
}
