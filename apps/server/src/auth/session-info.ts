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

export function adminSessionInfo(admin: Admin): AdminSessionInfo {
  const totp = requiresTotp(admin);
  return {
    Name: admin.name,
    UserName: admin.userName,
    AuthType: admin.authType,
    TotpEnabled: totp,
    AdminTotpVerified: admin.totpVerified,
    TotpEnrolmentDeferable: totp && !admin.totpVerified && admin.totpDeferrals < MAX_TOTP_DEFERRALS,
  };
}
