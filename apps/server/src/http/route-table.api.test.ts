import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ErrorCodes } from '@postern/protocol';
import { useTestApp } from '../test-support/use-test-app.js';
import {
  CALLER_ADDRESS,
  CALLER_KINDS,
  INTENDED_CALLERS,
  RouteCallers,
  concretePath,
  describeRoute,
  otherSpellings,
  type CallerKind,
} from '../test-support/route-callers.js';
import { routeTable, type RouteTableEntry } from './route-access.js';

/**
 * The server's own route table, walked under every kind of caller. Each route's expected callers
 * come from the scope it was registered in, so a route added tomorrow is covered here without
 * anyone editing this file; what this file pins by hand is only what is open to everyone.
 */

/*
 * The admin's call to each SAML key route makes a key pair; who may call is the subject here, not
 * keys (settings.api.test.ts tests those): each certificate is still built and stored, on one RSA
 * key made for the file rather than one per call (up to 2 s of CPU each).
 */
vi.mock('../lib/x509.js', async (importOriginal) =>
  (await import('../test-support/one-rsa-key.js')).withOneRsaKey(await importOriginal()),
);

/** Routes anyone may call. Adding one here is a security decision: say why in its scope. */
const PUBLIC_ROUTES = [
  'POST /api/login',
  'POST /api/logout',
  'POST /api/admin/login',
  'POST /api/admin/logout',
  'GET /api/saml/metadata',
  'GET /api/login/saml',
  'GET /api/admin/saml/metadata',
  'GET /api/admin/login/saml',
  'POST /api/saml/acs',
  'POST /api/admin/saml/acs',
  // OpenID Connect: the start only redirects to the provider; the callback is guarded by the state,
  // the flow cookie, PKCE and the signed ID token, not by a session (there is none yet).
  'GET /api/login/oidc',
  'GET /api/oidc/callback',
  'GET /api/admin/login/oidc',
  'GET /api/admin/oidc/callback',
  // Passkey sign-in: guarded by the single-use challenge and the passkey's signature, not by a
  // session (there is none yet); each realm's setting turns it off.
  'POST /api/webauthn/passwordless/options',
  'POST /api/webauthn/passwordless/verify',
  'POST /api/admin/webauthn/passwordless/options',
  'POST /api/admin/webauthn/passwordless/verify',
  'GET /api/theme',
  'GET /api/system_status',
  'GET /api/branding/logo/:variant',
  'GET /api/agent/install.sh',
  'GET /api/agent/postern-agent.mjs',
  'GET /api/agent/install-client.sh',
  'GET /api/agent/postern-client.mjs',
  // The agent documentation shipped in docs/: the repository's public text, nothing of this install.
  'GET /api/docs/agents',
  'GET /api/docs/api',
  'GET /api/docs/licensing',
  // The OpenAPI document: describes the routes (as the source does), holds no data of this install.
  'GET /api/openapi.json',
  // Liveness and readiness for load balancers and systemd: "up" or "not ready", nothing else.
  'GET /healthz',
  'GET /readyz',
  'GET /',
  'GET /*',
];

/** The only routes that accept a cross-site POST: the IdP posts its signed response to them. */
const CROSS_SITE_POST_ROUTES = ['POST /api/saml/acs', 'POST /api/admin/saml/acs'];

const STATE_CHANGING = new Set(['POST', 'PUT', 'DELETE', 'PATCH']);

/**
 * Whether the answer is this refusal. A HEAD answer has no body, so only its status speaks; the
 * SAML assertion consumers answer browsers, so they redirect to the login page with the code.
 */
function refusedWith(
  response: { statusCode: number; body: string; headers: Record<string, unknown> },
  status: number,
  code: string,
  route: RouteTableEntry,
) {
  if (route.crossSitePost && response.statusCode === 302) {
    return String(response.headers.location).endsWith(`?error=${code}`);
  }
  if (response.statusCode !== status) return false;
  if (route.method === 'HEAD') return response.body === '';
  try {
    return (JSON.parse(response.body) as { Err?: unknown }).Err === code;
  } catch {
    return false;
  }
}
const REFUSED = [401, 403];

/** Each walk sends every route several requests; on a loaded CI machine that takes far more than vitest's 5 s. */
const WALK_TIMEOUT_MS = 60_000;
describe('the route table (sqlite)', () => {
  const t = useTestApp('sqlite');
  let callers: RouteCallers;
  let table: RouteTableEntry[];

  beforeEach(async () => {
    // The store is emptied before each test: the callers' accounts, key and agent are made anew.
    callers = await RouteCallers.create(t.ctx);
    table = routeTable(t.app);
  });

  const call = async (route: RouteTableEntry, caller: CallerKind, url: string, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: route.method as 'GET',
      url,
      remoteAddress: CALLER_ADDRESS,
      headers: { ...(await callers.headers(caller)), ...headers },
    });

  it('lists every route with the scope it was registered in', () => {
    expect(table.length).toBeGreaterThan(100);
    const publicRoutes = table
      .filter((route) => route.access === 'public' && route.method !== 'HEAD')
      .map((route) => `${route.method} ${route.url}`);
    expect(publicRoutes.sort()).toEqual([...PUBLIC_ROUTES].sort());
    const crossSite = table.filter((route) => route.crossSitePost).map((route) => `${route.method} ${route.url}`);
    expect(crossSite.sort()).toEqual([...CROSS_SITE_POST_ROUTES].sort());
  });

  it('keeps every /api/admin/ route other than sign-in, sign-out, SAML, OpenID Connect and passkey sign-in for administrators', () => {
    const open = table.filter((route) => route.url.startsWith('/api/admin/') && !route.access.startsWith('admin'));
    expect(open.map(describeRoute).sort()).toEqual(
      [
        'POST /api/admin/login',
        'POST /api/admin/logout',
        'GET /api/admin/saml/metadata',
        'HEAD /api/admin/saml/metadata',
        'GET /api/admin/login/saml',
        'HEAD /api/admin/login/saml',
        'POST /api/admin/saml/acs',
        'GET /api/admin/login/oidc',
        'GET /api/admin/oidc/callback',
        'POST /api/admin/webauthn/passwordless/options',
        'POST /api/admin/webauthn/passwordless/verify',
      ].sort(),
    );
  });

  it(
    'lets only the intended callers past each route’s check, in the canonical spelling',
    async () => {
      const wrong: string[] = [];
      for (const route of table.filter((entry) => entry.access !== 'public')) {
        const path = concretePath(route, callers.params);
        for (const caller of CALLER_KINDS) {
          const response = await call(route, caller, path);
          const intended = INTENDED_CALLERS[route.access].includes(caller);
          if (intended === REFUSED.includes(response.statusCode)) {
            wrong.push(`${describeRoute(route)} as ${caller}: ${response.statusCode} ${response.body.slice(0, 80)}`);
          }
        }
      }
      expect(wrong).toEqual([]);
    },
    WALK_TIMEOUT_MS,
  );

  it(
    'refuses every other spelling of every path, whoever calls, before the route runs',
    async () => {
      const wrong: string[] = [];
      for (const route of table) {
        for (const spelling of otherSpellings(concretePath(route, callers.params))) {
          for (const caller of CALLER_KINDS) {
            const response = await call(route, caller, spelling);
            if (!refusedWith(response, 400, ErrorCodes.badRequest, route))
              wrong.push(`${route.method} ${spelling} as ${caller}: ${response.statusCode}`);
          }
        }
      }
      expect(wrong).toEqual([]);
    },
    WALK_TIMEOUT_MS,
  );

  it(
    'refuses a foreign or sibling Origin on every state-changing route, in every spelling',
    async () => {
      const wrong: string[] = [];
      const foreign: Record<string, string>[] = [
        { origin: 'https://attacker.example' },
        { origin: 'http://sibling.localhost:80' },
        { 'sec-fetch-site': 'cross-site' },
        { 'sec-fetch-site': 'same-site' },
      ];
      for (const route of table.filter((entry) => STATE_CHANGING.has(entry.method) && !entry.crossSitePost)) {
        // The caller the route is for: the attack rides a victim's own credentials.
        const caller = route.access === 'public' ? 'user' : (INTENDED_CALLERS[route.access][0] ?? 'none');
        const path = concretePath(route, callers.params);
        for (const headers of foreign) {
          const canonical = await call(route, caller, path, headers);
          if (!refusedWith(canonical, 403, ErrorCodes.forbiddenOrigin, route)) {
            wrong.push(`${describeRoute(route)} ${JSON.stringify(headers)}: ${canonical.statusCode}`);
          }
          for (const spelling of otherSpellings(path)) {
            const response = await call(route, caller, spelling, headers);
            if (response.statusCode !== 400)
              wrong.push(`${route.method} ${spelling} ${JSON.stringify(headers)}: ${response.statusCode}`);
          }
        }
      }
      expect(wrong).toEqual([]);
    },
    WALK_TIMEOUT_MS,
  );
});
