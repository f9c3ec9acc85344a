import type { AdminSessionInfo, UserSessionInfo } from '@postern/protocol';
import type { SecondFactorStep } from '../../lib/session/session-store';

/** The admin console's start page. */
export const ADMIN_HOME_PATH = '/admin/home';

/** Where a signed-in user lands: the new dashboard when their preference says so, else the older home. */
export function userHomePath(info: Pick<UserSessionInfo, 'NewUserDashboard'>): '/home/new' | '/home' {
  return info.NewUserDashboard ? '/home/new' : '/home';
}

/** What of an admin session decides its second-factor step. */
type AdminFactors = Pick<AdminSessionInfo, 'TotpEnabled' | 'AdminTotpVerified' | 'HasPasskeys'>;

/**
 * The second-factor step a new admin session still owes (spec §4): verification when TOTP is on and
 * the admin has a verified authenticator or a passkey, onboarding when TOTP is on but neither is set up yet.
 */
export function adminSecondFactorStep(info: AdminFactors): SecondFactorStep | null {
  if (!info.TotpEnabled) return null;
  return info.AdminTotpVerified || info.HasPasskeys === true ? '/admin/otp/verify' : '/admin/otp/onboard';
}

/** Where an admin goes right after signing in. */
export function adminLandingPath(info: AdminFactors): string {
  return adminSecondFactorStep(info) ?? ADMIN_HOME_PATH;
}
