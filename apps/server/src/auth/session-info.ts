import type { AdminSessionInfo, UserSessionInfo } from '@postern/protocol';
import type { User } from '../users/users.repo.js';
import type { Admin } from '../admins/admins.repo.js';

/** How many times an admin may postpone setting up an authenticator ("Do this next time"). */
export const MAX_TOTP_DEFERRALS = 5;

/**
 * Whether this account must pass a TOTP code: SAML and OpenID Connect accounts get their second factor
 * from their identity provider.
 */
export function requiresTotp(account: { authType: string; totpEnabled: boolean }): boolean {
  return account.totpEnabled && account.authType !== 'SAML' && account.authType !== 'oidc';
}

export function userSessionInfo(
  user: User,
  endsAt: number,
  kiosk: boolean,
  newUserDashboard: boolean,
): UserSessionInfo {
  return {
    Name: user.name,
    UserName: user.userName,
    AuthType: user.authType,
    Ends: new Date(endsAt).toISOString(),
    KioskMode: kiosk,
    NewUserDashboard: newUserDashboard,
  };
}

/**
 * The stage a sign-in that passed its first factor goes on to: active when the account needs no
 * second factor; else verifying one when it has one (a verified authenticator app, or a passkey),
 * else enrolling one.
 */
export function secondFactorStage(
  account: { authType: string; totpEnabled: boolean; totpVerified: boolean },
  hasPasskeys: boolean,
): 'active' | 'totp' | 'totp-enrol' {
  if (!requiresTotp(account)) return 'active';
  return account.totpVerified || hasPasskeys ? 'totp' : 'totp-enrol';
}

/**
 * The admin session as the web app keeps it. `hasPasskeys`, when the caller looked, is said as
 * HasPasskeys; an admin with passkeys verifies a second factor rather than enrolling one, so the
 * enrolment is not theirs to postpone.
 */
export function adminSessionInfo(admin: Admin, hasPasskeys?: boolean): AdminSessionInfo {
  const totp = requiresTotp(admin);
  const enrols = totp && !admin.totpVerified && hasPasskeys !== true;
  return {
    Name: admin.name,
    UserName: admin.userName,
    AuthType: admin.authType,
    TotpEnabled: totp,
    AdminTotpVerified: admin.totpVerified,
    TotpEnrolmentDeferable: enrols && admin.totpDeferrals < MAX_TOTP_DEFERRALS,
    ...(hasPasskeys === undefined ? {} : { HasPasskeys: hasPasskeys }),
  };
}
