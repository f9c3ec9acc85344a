import type { CookieSerializeOptions } from '@fastify/cookie';
import type { OidcRealm } from '@postern/protocol';

/** Where each realm's OpenID Connect routes live, and where a browser lands after it. */
export const OIDC_PATHS: Record<OidcRealm, { login: string; callback: string; loginPage: string }> = {
  user: { login: '/api/login/oidc', callback: '/api/oidc/callback', loginPage: '/' },
  admin: { login: '/api/admin/login/oidc', callback: '/api/admin/oidc/callback', loginPage: '/admin' },
};

/** PublicURL without a trailing slash, so paths joined to it never start with '//'. */
function base(publicUrl: string): string {
  return publicUrl.trim().replace(/\/+$/, '');
}

/** The redirect URI registered at the provider: the realm's callback under PublicURL. */
export function redirectUri(publicUrl: string, realm: OidcRealm): string {
  return `${base(publicUrl)}${OIDC_PATHS[realm].callback}`;
}

/** Where the provider sends the browser back after RP-initiated logout: the realm's login page. */
export function postLogoutRedirectUri(publicUrl: string, realm: OidcRealm): string {
  return `${base(publicUrl)}${OIDC_PATHS[realm].loginPage}`;
}

/** The page a failed or refused sign-in lands on, with the error code the login page shows. */
export function loginPageWithError(realm: OidcRealm, code: string): string {
  return `${OIDC_PATHS[realm].loginPage}?error=${encodeURIComponent(code)}`;
}

/**
 * The flow cookie: a random value the sign-in's start sets and its callback must bring back, so a
 * callback URL carried to another browser (a login CSRF: the attacker's own sign-in finished in the
 * victim's browser) is refused. The store keeps only its hash. `__Host-` like the session cookies.
 */
export function flowCookieName(realm: OidcRealm, insecureHttp: boolean): string {
  const name = realm === 'user' ? 'postern_oidc' : 'postern_admin_oidc';
  return insecureHttp ? name : `__Host-${name}`;
}

/**
 * Lax, not Strict: the provider sends the browser back with a top-level cross-site GET, which Lax
 * cookies accompany. It lives as long as a flow may, and is never read by script.
 */
export function flowCookieOptions(insecureHttp: boolean, lifetimeMs: number): CookieSerializeOptions {
  return { path: '/', httpOnly: true, secure: !insecureHttp, sameSite: 'lax', maxAge: Math.floor(lifetimeMs / 1000) };
}
