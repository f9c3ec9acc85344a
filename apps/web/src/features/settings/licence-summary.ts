import { LICENCE_EXPIRY_WARNING_DAYS, type LicenceStatus } from '@postern/protocol';

const DAY_MS = 86_400_000;

/** How the licence's end date reads: none installed, already past, or so many whole days away. */
export type LicenceExpiry =
  | { kind: 'none' }
  | { kind: 'expired' }
  /** `soon`: within the spec's 60-day warning window. */
  | { kind: 'expires'; days: number; soon: boolean };

/**
 * The expiry of a licence at `now`. Spec §4: a licence shows expired when its date is past, which the
 * server's own `Expired` flag may not say yet when the page has been open for a while.
 */
export function licenceExpiry(status: Pick<LicenceStatus, 'Expires' | 'Expired'>, now: Date): LicenceExpiry {
  if (status.Expires === null) return status.Expired ? { kind: 'expired' } : { kind: 'none' };
  const remaining = Date.parse(status.Expires) - now.getTime();
  if (status.Expired || Number.isNaN(remaining) || remaining <= 0) return { kind: 'expired' };
  // Whole days left, rounded down: promising a day that is not there would mislead.
  const days = Math.floor(remaining / DAY_MS);
  return { kind: 'expires', days, soon: days <= LICENCE_EXPIRY_WARNING_DAYS };
}

/**
 * Where the user count stands against the licence (spec §4 "Licence grace"): within the limit,
 * over it but within the overage allowance, or beyond limit plus overage (new users denied).
 */
export type LicenceUsageState = 'within' | 'grace' | 'denied';

/** The licence dialog's usage figures. */
export interface LicenceUsage {
  state: LicenceUsageState;
  /** UserLimit plus the overage allowance: the most users the licence tolerates. */
  limitIncludingOverage: number;
  /** Users still possible before new ones are denied (0 once denied). */
  remainingSeats: number;
  /** How far the count is over the limit, as a whole percentage of the limit (0 when within). */
  percentOverLimit: number;
}

/** The usage figures of a licence status. */
export function licenceUsage(
  status: Pick<LicenceStatus, 'UserCount' | 'UserLimit' | 'UserLimitOverage'>,
): LicenceUsage {
  const limitIncludingOverage = status.UserLimit + status.UserLimitOverage;
  const over = status.UserCount - status.UserLimit;
  const state: LicenceUsageState = over <= 0 ? 'within' : status.UserCount > limitIncludingOverage ? 'denied' : 'grace';
  return {
    state,
    limitIncludingOverage,
    remainingSeats: Math.max(0, limitIncludingOverage - status.UserCount),
    percentOverLimit: over <= 0 || status.UserLimit <= 0 ? 0 : Math.ceil((over / status.UserLimit) * 100),
  };
}

/** Machines (agents) activated, with the licence's maximum when it sets one (0 means none). */
export function machineCount(status: Pick<LicenceStatus, 'MachineCount' | 'MaxMachines'>): {
  count: number;
  max: number | null;
} {
  return { count: status.MachineCount, max: status.MaxMachines > 0 ? status.MaxMachines : null };
}
