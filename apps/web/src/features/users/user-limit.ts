import type { LicensingSummary, UserRecord } from '@postern/protocol';

/**
 * Where the user list stands against the licence, for the Users screen (spec §2 Users, §5, §8):
 * - `none`: nothing to say (unlicensed installations are not limited; within the limit; or over it
 *   with SAML users present, whom the IdP provisions, so the banner would only nag);
 * - `grace`: more users than UserLimit but fewer than UserLimit + overage: new users are still allowed;
 * - `reached`: at or above UserLimit + overage: creation is replaced by err.userLimitReached.
 * `overLimit` says whether the count exceeds UserLimit itself (the banner's "exceeds" wording).
 */
export type UserLimitNotice =
  | { kind: 'none' }
  | { kind: 'grace'; count: number; limit: number; overage: number; percent: number; remaining: number }
  | { kind: 'reached'; count: number; limit: number; percent: number; overLimit: boolean; showBanner: boolean };

/** The notice for a licensing summary and the users listed now (pure; see UserLimitNotice). */
export function userLimitNotice(
  licensing: LicensingSummary,
  users: readonly Pick<UserRecord, 'AuthType'>[],
): UserLimitNotice {
  // The server only limits a valid licence: an unlicensed installation may create users (unlicensed ones).
  if (!licensing.Licensed) return { kind: 'none' };
  const count = users.length;
  const limit = licensing.UserLimit;
  const ceiling = limit + licensing.UserLimitOverage;
  const percent = licensing.UserLimitOveragePercentage;
  const overLimit = count > limit;
  const showBanner = overLimit && !users.some((user) => user.AuthType === 'SAML');
  if (count >= ceiling) return { kind: 'reached', count, limit, percent, overLimit, showBanner };
  if (!showBanner) return { kind: 'none' };
  return { kind: 'grace', count, limit, overage: licensing.UserLimitOverage, percent, remaining: ceiling - count };
}

/** Whether new users may be created: not at or above the licence's limit plus its overage. */
export const canCreateUsers = (notice: UserLimitNotice): boolean => notice.kind !== 'reached';

/**
 * The most concurrent sessions a user may be given, and the default: the licence's SessionLimit, or
 * null when unlicensed (the server then sets no maximum, and an empty field means no limit).
 */
export function licenceSessionLimit(licensing: LicensingSummary): number | null {
  return licensing.Licensed && licensing.SessionLimit > 0 ? licensing.SessionLimit : null;
}
