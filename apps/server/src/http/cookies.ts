import type { CookieSerializeOptions } from '@fastify/cookie';

export type SessionRealm = 'user' | 'admin';

/**
 * Cookie names per realm. With `Secure` we use the `__Host-` prefix, which browsers only accept
 * from a secure origin with Path=/ and no Domain, so a sibling subdomain cannot plant or widen it.
 * Plain-HTTP development mode drops both (browsers refuse `__Host-` without `Secure`).
 */
export function sessionCookieName(realm: SessionRealm, insecureHttp: boolean): string {
  const base = realm === 'user' ? 'postern_session' : 'postern_admin_session';
  return insecureHttp ? base : `__Host-${base}`;
}

/**
 * User cookies are SameSite=Lax so a link into the portal (or an SSO return) arrives signed in;
 * admin cookies are Strict. Kiosk sessions get no expiry so the cookie dies with the browser.
 */
export function sessionCookieOptions(
  realm: SessionRealm,
  insecureHttp: boolean,
  expiresAt: number | null,
): CookieSerializeOptions {
  return {
    path: '/',
    httpOnly: true,
    secure: !insecureHttp,
    sameSite: realm === 'user' ? 'lax' : 'strict',
    ...(expiresAt === null ? {} : { expires: new Date(expiresAt) }),
  };
}

/**
 * The device cookie (auth/device-cookie.ts): one per browser, for every account that signed in on it,
 * with the same `__Host-` rule as the session cookies.
 */
export function deviceCookieName(insecureHttp: boolean): string {
  return insecureHttp ? 'postern_device' : '__Host-postern_device';
}

/**
 * HttpOnly and Secure like the session cookies; Strict, since only the sign-in forms' own requests read
 * it; it lives as long as its newest entry is honoured (a kiosk's: until the browser closes).
 */
export function deviceCookieOptions(insecureHttp: boolean, expiresAt: number | null): CookieSerializeOptions {
  return {
    path: '/',
    httpOnly: true,
    secure: !insecureHttp,
    sameSite: 'strict',
    ...(expiresAt === null ? {} : { expires: new Date(expiresAt) }),
  };
}
