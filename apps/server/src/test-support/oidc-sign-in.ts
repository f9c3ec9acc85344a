import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect } from 'vitest';
import type { OidcRealm } from '@postern/protocol';
import type { TestApp } from './test-app.js';
import { givenAdminSession } from './sessions.js';
import { adminClient } from './admin-client.js';
import { cookieFrom } from './http.js';
import { TestOidcProvider, type TestOidcAccount } from './oidc-provider.js';

/**
 * What the OpenID Connect sign-in tests (src/oidc/*.api.test.ts) share: one provider per file with its
 * people and Postern's two clients, the settings that point a test app at it, and the steps of a
 * browser's sign-in: the start at Postern, the sign-in at the provider, the callback at Postern.
 */

/** Where people reach Postern; the provider knows its redirect URIs under it. */
export const PUBLIC_URL = 'https://access.example.com';
export const USER_CLIENT = { clientId: 'postern-users', clientSecret: 'users-secret-1' };
export const ADMIN_CLIENT = { clientId: 'postern-admins', clientSecret: 'admins-secret-1' };
export const CALLBACK = { user: '/api/oidc/callback', admin: '/api/admin/oidc/callback' } as const;
export const LOGIN = { user: '/api/login/oidc', admin: '/api/admin/login/oidc' } as const;

/** People at the provider, by `sub`. */
export const ACCOUNTS: TestOidcAccount[] = [
  {
    sub: 'sub-alice',
    claims: { preferred_username: 'alice', name: 'Alice Example', groups: ['engineering', 'vpn-users'] },
  },
  { sub: 'sub-bob', claims: { preferred_username: 'bob', given_name: 'Bob', family_name: 'Builder' } },
  { sub: 'sub-carol', claims: { preferred_username: 'carol', name: 'Carol Admin' } },
  // Signs in, but the provider names no user name for her.
  { sub: 'sub-nameless', claims: { name: 'No Name' } },
];

/** The provider, started once for the file. */
export function useTestOidcProvider(): () => TestOidcProvider {
  let provider: TestOidcProvider | undefined;
  beforeAll(async () => {
    provider = await TestOidcProvider.start({
      accounts: ACCOUNTS,
      clients: [
        {
          ...USER_CLIENT,
          redirectUris: [`${PUBLIC_URL}${CALLBACK.user}`],
          postLogoutRedirectUris: [`${PUBLIC_URL}/`],
        },
        {
          ...ADMIN_CLIENT,
          redirectUris: [`${PUBLIC_URL}${CALLBACK.admin}`],
          postLogoutRedirectUris: [`${PUBLIC_URL}/admin`],
        },
      ],
    });
  });
  afterAll(async () => {
    await provider?.stop();
  });
  return () => {
    if (provider === undefined) throw new Error('the OpenID Connect provider did not start');
    return provider;
  };
}

/**
 * Before a test: the provider signs its tokens by the real clock, so the app's clock is moved there,
 * and both realms are pointed at `issuer` as an administrator would (with `change` on top).
 */
export async function configureOidc(t: TestApp, issuer: string, change: Record<string, unknown> = {}): Promise<void> {
  t.clock.advance(Date.now() - t.clock.now());
  const admin = adminClient(t.app, await givenAdminSession(t));
  const answer = await admin.put('/api/admin/settings/authentication', {
    PublicURL: PUBLIC_URL,
    SAMLMetadataURL: '',
    AdminSAMLMetadataURL: '',
    LDAPURL: '',
    LDAPStartTLS: false,
    LDAPSkipVerifyTLS: false,
    OIDCIssuerURL: issuer,
    OIDCClientID: USER_CLIENT.clientId,
    OIDCClientSecret: USER_CLIENT.clientSecret,
    OIDCDisplayName: 'Example IdP',
    AdminOIDCIssuerURL: issuer,
    AdminOIDCClientID: ADMIN_CLIENT.clientId,
    AdminOIDCClientSecret: ADMIN_CLIENT.clientSecret,
    AdminOIDCDisplayName: 'Example IdP',
    ...change,
  });
  expect(answer.status, answer.response.body).toBe(200);
}

/** A started sign-in: where Postern sent the browser, and the flow cookie it set. */
export interface StartedSignIn {
  response: LightMyRequestResponse;
  /** The provider's authorization URL. */
  location: string;
  /** `name=value` of the flow cookie. */
  flowCookie: string;
}

/** The browser opens the realm's OpenID Connect login at Postern (`query`: e.g. `?kioskMode=true`). */
export async function startSignIn(
  app: FastifyInstance,
  realm: OidcRealm,
  query = '',
  cookie?: string,
): Promise<StartedSignIn> {
  const response = await app.inject({
    method: 'GET',
    url: `${LOGIN[realm]}${query}`,
    ...(cookie === undefined ? {} : { headers: { cookie } }),
  });
  expect(response.statusCode, response.body).toBe(302);
  const flowCookie = cookieFrom(response, realm === 'user' ? 'postern_oidc' : 'postern_admin_oidc');
  expect(flowCookie, String(response.headers.location)).toBeDefined();
  return { response, location: String(response.headers.location), flowCookie: flowCookie ?? '' };
}

/** The browser comes back from the provider to Postern's callback `url`, with `cookie` (the flow cookie …). */
export function finishSignIn(app: FastifyInstance, url: URL, cookie: string): Promise<LightMyRequestResponse> {
  expect(url.origin).toBe(PUBLIC_URL);
  return app.inject({ method: 'GET', url: `${url.pathname}${url.search}`, headers: { cookie } });
}

/** A whole sign-in of `sub` through the realm: started and finished on `app` (or `finishOn`). */
export async function signInThrough(
  app: FastifyInstance,
  provider: TestOidcProvider,
  realm: OidcRealm,
  sub: string,
  options: { query?: string; finishOn?: FastifyInstance } = {},
): Promise<LightMyRequestResponse> {
  const started = await startSignIn(app, realm, options.query);
  const callback = await provider.signIn(started.location, sub);
  return finishSignIn(options.finishOn ?? app, callback, started.flowCookie);
}

/** The `?error=` a refused sign-in sends the browser to the realm's login page with. */
export function refusedWith(response: LightMyRequestResponse, realm: OidcRealm): string | null {
  expect(response.statusCode, response.body).toBe(302);
  const location = String(response.headers.location);
  const page = realm === 'user' ? '/' : '/admin';
  const url = new URL(location, PUBLIC_URL);
  if (url.pathname !== page) return null;
  return url.searchParams.get('error');
}
