import type { AdminAuthType, UserAuthType } from '@postern/protocol';

/**
 * Whether an account of this kind holds passkeys: those whose factors Postern checks. SAML and
 * OpenID Connect accounts get theirs from their provider, API-key accounts have none.
 */
export function accountHasPasskeys(authType: UserAuthType | AdminAuthType | undefined): boolean {
  return authType === 'local' || authType === 'LDAP';
}
