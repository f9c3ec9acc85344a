/**
 * Whose names an account's user name is unique among (ASVS 6.8.1: identities are namespaced by their
 * identity provider, never merged across them). Postern's own directory ('') holds the local, LDAP,
 * SAML and API-key accounts, which share one name each as the spec has it (a SAML sign-in never takes
 * over a local account of the same name); 'oidc' holds the accounts of the OpenID Connect provider,
 * so its `alice` is an account of her own beside a directory `alice`.
 */
export type AccountProvider = '' | 'oidc';

/** Postern's own directory: local, LDAP, SAML and API-key accounts. */
export const DIRECTORY: AccountProvider = '';
/** The OpenID Connect provider of the account's realm (the users' or the admins'). */
export const OIDC_PROVIDER: AccountProvider = 'oidc';

/** The namespace of an account of this kind. */
export function providerOf(authType: string): AccountProvider {
  return authType === 'oidc' ? OIDC_PROVIDER : DIRECTORY;
}
