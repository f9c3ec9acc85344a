import { beforeEach, describe, expect, it } from 'vitest';
import { AuditActions, ErrorCodes, type AuditAction, type AuditDetail } from '@postern/protocol';
import { freePort } from '@postern/test-support';
import { useTestApp, type LiveTestApp } from '../test-support/use-test-app.js';
import { bothStores } from '../test-support/store-kinds.js';
import { givenAdmin, givenUser } from '../test-support/factories.js';
import { cookieFrom, setCookies, signInUser } from '../test-support/http.js';
import { adminClient } from '../test-support/admin-client.js';
import { givenAdminSession, givenUserSession } from '../test-support/sessions.js';
import { TestOidcProvider } from '../test-support/oidc-provider.js';
import {
  ACCOUNTS,
  ADMIN_CLIENT,
  CALLBACK,
  PUBLIC_URL,
  USER_CLIENT,
  configureOidc,
  finishSignIn,
  refusedWith,
  signInThrough,
  startSignIn,
  useTestOidcProvider,
} from '../test-support/oidc-sign-in.js';
import { recentAudit } from '../audit/audit.js';
import { writeSetting } from '../settings/settings.js';
import { sweepOnce } from '../sessions/session-sweeper.js';
import { generateLicenceKeyPair, issueLicence, publicKeyBase64 } from '../licence/licence-format.js';

/**
 * OpenID Connect sign-in end to end against a real provider (oidc-provider on loopback): the flow,
 * the accounts it creates and finds (namespaced by provider), the realms, every refusal (each a
 * redirect to the login page with a code, audited), and RP-initiated logout.
 */

const provider = useTestOidcProvider();
const licenceSigner = generateLicenceKeyPair();
const MINUTE_MS = 60_000;

/** The newest audit detail of `action`, if any. */
async function lastAudit(t: LiveTestApp, action: AuditAction): Promise<AuditDetail | undefined> {
  const [entry] = await recentAudit(t.ctx.db, 1, { action });
  return entry?.Entry[action];
}

async function usersNamed(t: LiveTestApp, userName: string) {
  return t.ctx.db.selectFrom('users').selectAll().where('userName', '=', userName).orderBy('createdAt').execute();
}

async function groupNamesOf(t: LiveTestApp, userId: string): Promise<string[]> {
  const rows = await t.ctx.db
    .selectFrom('groupUsers')
    .innerJoin('groups', 'groups.id', 'groupUsers.groupId')
    .select('groups.name')
    .where('groupUsers.userId', '=', userId)
    .orderBy('groups.name')
    .execute();
  return rows.map((row) => row.name);
}

describe.each(bothStores())('OpenID Connect sign-in (%s)', { timeout: 30_000 }, (kind) => {
  const t = useTestApp(kind, {
    config: { licencePublicKeys: [Buffer.from(publicKeyBase64(licenceSigner.publicKey), 'base64')] },
  });
  beforeEach(async () => {
    provider().editIdToken = null;
    provider().signingKey = 'provider';
    for (const account of ACCOUNTS) provider().setAccount(account);
    await configureOidc(t, provider().issuer);
  });

  /** A signed-in admin's cookie, of an admin the test does not otherwise use. */
  const directoryAdminCookie = async () =>
    givenAdminSession(t, await givenAdmin(t.ctx, { userName: 'directory-admin' }));

  /** The session cookie a successful callback set for the realm. */
  const sessionCookie = (response: Awaited<ReturnType<typeof finishSignIn>>, realm: 'user' | 'admin') =>
    cookieFrom(response, realm === 'user' ? 'postern_session' : 'postern_admin_session');

  describe('users', () => {
    it('creates the user at the first sign-in, with the groups of the claim, and starts a session as SAML does', async () => {
      const answer = await signInThrough(t.app, provider(), 'user', 'sub-alice');

      expect(answer.headers.location).toBe('/home/new');
      const cookie = sessionCookie(answer, 'user');
      expect(cookie).toMatch(/^__Host-postern_session=/);
      const [user, ...others] = await usersNamed(t, 'alice');
      expect(others).toEqual([]);
      expect(user).toMatchObject({ authType: 'oidc', provider: 'oidc', name: 'Alice Example' });
      expect(user).toMatchObject({ externalIssuer: provider().issuer, externalSubject: 'sub-alice' });
      expect(await groupNamesOf(t, user?.id ?? '')).toEqual(['engineering', 'vpn-users']);
      const status = await t.app.inject({ method: 'GET', url: '/api/status', headers: { cookie: cookie ?? '' } });
      expect(status.statusCode).toBe(200);
      expect(status.json()).toMatchObject({ data: { Name: 'Alice Example', AuthType: 'oidc' } });
      expect(await lastAudit(t, AuditActions.UserCreatedByOidc)).toMatchObject({
        UserName: 'alice',
        Description: 'OpenID Connect: Example IdP',
      });
      expect(await lastAudit(t, AuditActions.UserLogin)).toMatchObject({
        UserName: 'alice',
        Description: 'OpenID Connect: Example IdP',
      });
    });

    it('reuses the account at the next sign-in, following the provider’s name and groups', async () => {
      await signInThrough(t.app, provider(), 'user', 'sub-alice');
      const [first] = await usersNamed(t, 'alice');
      provider().setAccount({
        sub: 'sub-alice',
        claims: { preferred_username: 'alice', name: 'Alice Renamed', groups: ['engineering'] },
      });

      const answer = await signInThrough(t.app, provider(), 'user', 'sub-alice');

      expect(answer.headers.location).toBe('/home/new');
      const users = await usersNamed(t, 'alice');
      expect(users.map((user) => [user.id, user.name])).toEqual([[first?.id, 'Alice Renamed']]);
      expect(await groupNamesOf(t, first?.id ?? '')).toEqual(['engineering']);
    });

    it('keeps a local alice and the OpenID Connect alice apart: two accounts, neither reaching the other', async () => {
      const local = await givenUser(t.ctx, { userName: 'alice', name: 'Local Alice' });

      const answer = await signInThrough(t.app, provider(), 'user', 'sub-alice');

      expect(answer.headers.location).toBe('/home/new');
      const users = await usersNamed(t, 'alice');
      expect(users.map((user) => [user.authType, user.provider])).toEqual([
        ['local', ''],
        ['oidc', 'oidc'],
      ]);
      const oidcCookie = sessionCookie(answer, 'user') ?? '';
      const asOidc = await t.app.inject({ method: 'GET', url: '/api/status', headers: { cookie: oidcCookie } });
      expect(asOidc.json()).toMatchObject({ data: { Name: 'Alice Example', AuthType: 'oidc' } });
      // The password form still signs in the local account, and only it.
      const localCookie = await signInUser(t.app, 'alice', local.password);
      const asLocal = await t.app.inject({ method: 'GET', url: '/api/status', headers: { cookie: localCookie } });
      expect(asLocal.json()).toMatchObject({ data: { Name: 'Local Alice', AuthType: 'local' } });
    });

    it('starts a kiosk session for kioskMode=true: its cookie dies with the browser', async () => {
      const answer = await signInThrough(t.app, provider(), 'user', 'sub-bob', { query: '?kioskMode=true' });

      const header = setCookies(answer).find((cookie) => cookie.startsWith('__Host-postern_session='));
      expect(header).toBeDefined();
      expect(header).not.toMatch(/Expires=/i);
      const [bob] = await usersNamed(t, 'bob');
      expect(bob?.name).toBe('Bob Builder');
      const sessions = await t.ctx.db
        .selectFrom('userSessions')
        .select('kiosk')
        .where('userId', '=', bob?.id ?? '')
        .execute();
      expect(sessions.map((session) => Boolean(session.kiosk))).toEqual([true]);
    });

    it('refuses another person the provider later gives the same user name (the account is bound to its sub)', async () => {
      await signInThrough(t.app, provider(), 'user', 'sub-alice');
      provider().setAccount({ sub: 'sub-mallory', claims: { preferred_username: 'alice', name: 'Mallory' } });

      const answer = await signInThrough(t.app, provider(), 'user', 'sub-mallory');

      expect(refusedWith(answer, 'user')).toBe(ErrorCodes.authenticationFailed);
      expect(sessionCookie(answer, 'user')).toBeUndefined();
      expect((await lastAudit(t, AuditActions.UserLoginFailed))?.ErrorMessage).toMatch(/bound to another identity/);
      expect((await usersNamed(t, 'alice')).map((user) => user.name)).toEqual(['Alice Example']);
    });
  });

  describe('refusals: each a redirect to the login page with a code, audited', () => {
    const expectRefused = async (answer: Awaited<ReturnType<typeof finishSignIn>>, pattern: RegExp, code?: string) => {
      expect(refusedWith(answer, 'user')).toBe(code ?? ErrorCodes.authenticationFailed);
      expect(sessionCookie(answer, 'user')).toBeUndefined();
      const failure = await lastAudit(t, AuditActions.UserLoginFailed);
      expect(failure?.ErrorMessage).toMatch(/^OpenID Connect \(Example IdP\): /);
      expect(failure?.ErrorMessage).toMatch(pattern);
    };

    it('refuses a callback replayed (its state is spent at the first use)', async () => {
      const started = await startSignIn(t.app, 'user');
      const callback = await provider().signIn(started.location, 'sub-alice');
      expect((await finishSignIn(t.app, callback, started.flowCookie)).headers.location).toBe('/home/new');

      await expectRefused(await finishSignIn(t.app, callback, started.flowCookie), /unknown, expired or already used/);
    });

    it('refuses a state that does not match a started sign-in', async () => {
      const started = await startSignIn(t.app, 'user');
      const callback = await provider().signIn(started.location, 'sub-alice');
      callback.searchParams.set('state', 'not-the-state');

      await expectRefused(await finishSignIn(t.app, callback, started.flowCookie), /unknown, expired or already used/);
    });

    it('refuses a callback brought to a browser other than the one that started it', async () => {
      const started = await startSignIn(t.app, 'user');
      const other = await startSignIn(t.app, 'user');
      const callback = await provider().signIn(started.location, 'sub-alice');

      await expectRefused(await finishSignIn(t.app, callback, other.flowCookie), /another browser/);
      // Spent by that attempt: the right browser cannot use it afterwards either.
      await expectRefused(await finishSignIn(t.app, callback, started.flowCookie), /already used/);
    });

    it('refuses a sign-in finished after its ten minutes', async () => {
      const started = await startSignIn(t.app, 'user');
      const callback = await provider().signIn(started.location, 'sub-alice');
      t.clock.advance(10 * MINUTE_MS + 1);

      await expectRefused(await finishSignIn(t.app, callback, started.flowCookie), /unknown, expired or already used/);
    });

    it.each([
      ['the wrong audience', (claims: Record<string, unknown>) => ({ ...claims, aud: 'someone-else' }), /aud/],
      ['the wrong nonce', (claims: Record<string, unknown>) => ({ ...claims, nonce: 'another-nonce' }), /nonce/],
      ['another issuer', (claims: Record<string, unknown>) => ({ ...claims, iss: 'https://evil.example' }), /iss/],
      [
        'an expiry past the allowed skew',
        (claims: Record<string, unknown>) => ({ ...claims, exp: Math.floor(Date.now() / 1000) - 61 }),
        /exp/,
      ],
    ])('refuses an ID token with %s', async (_what, edit, pattern) => {
      provider().editIdToken = edit;

      await expectRefused(await signInThrough(t.app, provider(), 'user', 'sub-alice'), pattern);
      expect(await usersNamed(t, 'alice')).toEqual([]);
    });

    it('accepts an expiry within the allowed skew of sixty seconds', async () => {
      provider().editIdToken = (claims) => ({ ...claims, exp: Math.floor(Date.now() / 1000) - 30 });

      expect((await signInThrough(t.app, provider(), 'user', 'sub-alice')).headers.location).toBe('/home/new');
    });

    it('refuses an ID token signed with a key the provider does not publish', async () => {
      provider().editIdToken = (claims) => claims;
      provider().signingKey = 'unpublished';

      await expectRefused(await signInThrough(t.app, provider(), 'user', 'sub-alice'), /signature/i);
    });

    it('reads the provider’s keys again for each callback, so a rotated key is accepted at once', async () => {
      expect((await signInThrough(t.app, provider(), 'user', 'sub-alice')).headers.location).toBe('/home/new');
      provider().editIdToken = (claims) => claims;
      provider().signingKey = 'rotated';
      const keyReads = provider().requests.filter((path) => path === '/jwks').length;

      expect((await signInThrough(t.app, provider(), 'user', 'sub-alice')).headers.location).toBe('/home/new');
      expect(provider().requests.filter((path) => path === '/jwks').length).toBeGreaterThan(keyReads);
    });

    it('refuses when the provider refuses the client secret', async () => {
      await configureOidc(t, provider().issuer, { OIDCClientSecret: 'not-the-secret' });

      await expectRefused(await signInThrough(t.app, provider(), 'user', 'sub-alice'), /invalid_client/);
    });

    it('refuses when the provider answers with an error (the person declined)', async () => {
      const started = await startSignIn(t.app, 'user');
      const state = new URL(started.location).searchParams.get('state') ?? '';
      const callback = new URL(`${PUBLIC_URL}${CALLBACK.user}`);
      callback.search = new URLSearchParams({ error: 'access_denied', state, iss: provider().issuer }).toString();

      await expectRefused(await finishSignIn(t.app, callback, started.flowCookie), /access_denied/);
    });

    it('refuses a sign-in whose claims name no user name', async () => {
      await expectRefused(
        await signInThrough(t.app, provider(), 'user', 'sub-nameless'),
        /preferred_username \(the user name\) is missing/,
      );
    });

    it('reads the user name from the claim the settings name', async () => {
      provider().setAccount({ sub: 'sub-dora', claims: { preferred_username: 'dora', upn: 'dora@example.com' } });
      await configureOidc(t, provider().issuer, { OIDCUserNameClaim: 'upn', OIDCScopes: 'openid profile' });

      expect((await signInThrough(t.app, provider(), 'user', 'sub-dora')).headers.location).toBe('/home/new');
      expect(await usersNamed(t, 'dora@example.com')).toHaveLength(1);
    });

    it('tells a disabled user so', async () => {
      await signInThrough(t.app, provider(), 'user', 'sub-alice');
      await t.ctx.db.updateTable('users').set({ disabled: true }).where('userName', '=', 'alice').execute();

      await expectRefused(
        await signInThrough(t.app, provider(), 'user', 'sub-alice'),
        /disabled/,
        ErrorCodes.accountDisabled,
      );
    });

    it('creates no user beyond the licence’s user limit', async () => {
      const now = t.clock.now();
      const licence = issueLicence(
        {
          ID: 'lic-oidc-limit',
          Licensee: 'Test',
          UserLimit: 1,
          UserLimitOveragePercentage: 0,
          SessionLimit: 5,
          MaxMachines: 1,
          IssuedAt: new Date(now - 86_400_000).toISOString(),
          Expires: new Date(now + 86_400_000).toISOString(),
        },
        licenceSigner.privateKey,
      );
      await writeSetting(t.ctx.db, 'License', licence, now);
      await givenUser(t.ctx, { userName: 'already-here' });

      await expectRefused(await signInThrough(t.app, provider(), 'user', 'sub-alice'), /user limit/);
      expect(await usersNamed(t, 'alice')).toEqual([]);
    });

    it('says the provider is unavailable when it cannot be reached at the start', async () => {
      await configureOidc(t, `http://127.0.0.1:${await freePort()}`);

      const answer = await t.app.inject({ method: 'GET', url: '/api/login/oidc' });

      expect(refusedWith(answer, 'user')).toBe(ErrorCodes.oidcProviderUnavailable);
      expect((await lastAudit(t, AuditActions.UserLoginFailed))?.ErrorMessage).toMatch(/could not be reached/);
    });

    it('reads a failing provider once for many anonymous starts at a time, and audits it once', async () => {
      await configureOidc(t, `http://127.0.0.1:${await freePort()}`);

      const answers = await Promise.all(
        Array.from({ length: 20 }, () => t.app.inject({ method: 'GET', url: '/api/login/oidc' })),
      );

      for (const answer of answers) expect(refusedWith(answer, 'user')).toBe(ErrorCodes.oidcProviderUnavailable);
      expect(await recentAudit(t.ctx.db, 50, { action: AuditActions.UserLoginFailed })).toHaveLength(1);
    });

    it('says the provider is unavailable when it goes down before the callback', async () => {
      const failing = await TestOidcProvider.start({
        accounts: ACCOUNTS,
        clients: [{ ...USER_CLIENT, redirectUris: [`${PUBLIC_URL}${CALLBACK.user}`] }],
      });
      await configureOidc(t, failing.issuer);
      const started = await startSignIn(t.app, 'user');
      const callback = await failing.signIn(started.location, 'sub-alice');
      await failing.stop();

      await expectRefused(
        await finishSignIn(t.app, callback, started.flowCookie),
        /unavailable/,
        ErrorCodes.oidcProviderUnavailable,
      );
    });

    it('says so when the realm is not configured', async () => {
      await configureOidc(t, '', { OIDCClientSecretRemove: true, OIDCClientSecret: undefined });

      const answer = await t.app.inject({ method: 'GET', url: '/api/login/oidc' });

      expect(refusedWith(answer, 'user')).toBe(ErrorCodes.oidcNotConfigured);
    });
  });

  describe('admins', () => {
    it('signs in an OpenID Connect admin created beforehand, through the admins’ provider only', async () => {
      await givenAdmin(t.ctx, { userName: 'carol', authType: 'oidc', passwordHash: null, totpEnabled: false });

      const answer = await signInThrough(t.app, provider(), 'admin', 'sub-carol');

      expect(answer.headers.location).toBe('/admin/home');
      const cookie = sessionCookie(answer, 'admin') ?? '';
      expect(cookie).toMatch(/^__Host-postern_admin_session=/);
      const session = await t.app.inject({ method: 'GET', url: '/api/admin/session', headers: { cookie } });
      expect(session.json()).toMatchObject({ data: { UserName: 'carol', AuthType: 'oidc', TotpEnabled: false } });
      expect(await lastAudit(t, AuditActions.AdminLogin)).toMatchObject({
        AdminName: 'carol',
        Description: 'OpenID Connect: Example IdP',
      });
    });

    it('admits nobody Postern has no OpenID Connect admin for, not even the name of a local admin', async () => {
      await givenAdmin(t.ctx, { userName: 'bob' });

      const answer = await signInThrough(t.app, provider(), 'admin', 'sub-bob');

      expect(refusedWith(answer, 'admin')).toBe(ErrorCodes.authenticationFailed);
      expect(sessionCookie(answer, 'admin')).toBeUndefined();
      expect((await lastAudit(t, AuditActions.AdminLoginFailed))?.ErrorMessage).toMatch(
        /no OpenID Connect admin has this user name/,
      );
    });

    it('tells an admin whose login is disabled so', async () => {
      await givenAdmin(t.ctx, { userName: 'carol', authType: 'oidc', passwordHash: null, loginEnabled: false });

      const answer = await signInThrough(t.app, provider(), 'admin', 'sub-carol');

      expect(refusedWith(answer, 'admin')).toBe(ErrorCodes.loginNotPermitted);
    });

    it('never makes an admin of a user-realm sign-in, and never finishes one realm’s flow at the other’s callback', async () => {
      await givenAdmin(t.ctx, { userName: 'carol', authType: 'oidc', passwordHash: null, totpEnabled: false });

      const asUser = await signInThrough(t.app, provider(), 'user', 'sub-carol');
      expect(asUser.headers.location).toBe('/home/new');
      expect(sessionCookie(asUser, 'admin')).toBeUndefined();

      const started = await startSignIn(t.app, 'user');
      const callback = await provider().signIn(started.location, 'sub-carol');
      const atAdmin = new URL(`${PUBLIC_URL}${CALLBACK.admin}${callback.search}`);
      const answer = await finishSignIn(
        t.app,
        atAdmin,
        started.flowCookie.replace('postern_oidc', 'postern_admin_oidc'),
      );
      expect(refusedWith(answer, 'admin')).toBe(ErrorCodes.authenticationFailed);
      expect(sessionCookie(answer, 'admin')).toBeUndefined();
    });

    it('uses the admins’ client at the provider, not the users’', async () => {
      const started = await startSignIn(t.app, 'admin');
      expect(new URL(started.location).searchParams.get('client_id')).toBe(ADMIN_CLIENT.clientId);
      const user = await startSignIn(t.app, 'user');
      expect(new URL(user.location).searchParams.get('client_id')).toBe(USER_CLIENT.clientId);
    });
  });

  describe('the directory (admin API)', () => {
    it('creates an OpenID Connect user or admin beside a local one of the same name, never a second of either', async () => {
      const admin = adminClient(t.app, await directoryAdminCookie());
      await givenUser(t.ctx, { userName: 'alice' });
      await givenAdmin(t.ctx, { userName: 'carol' });
      const user = (AuthType: string) => ({
        Name: 'Alice',
        UserName: 'alice',
        AuthType,
        PlainPassword: '',
        Duration: 60,
      });
      const anAdmin = (AuthType: string) => ({ Name: 'Carol', UserName: 'carol', AuthType, TOTPEnabled: true });

      expect((await admin.post('/api/admin/users', user('oidc'))).status).toBe(200);
      expect((await admin.post('/api/admin/users', user('oidc'))).body).toEqual({
        Err: ErrorCodes.userNameExists,
        Extra: 'UserName',
      });
      // Local, LDAP and SAML accounts share one directory, as before.
      expect((await admin.post('/api/admin/users', user('SAML'))).status).toBe(409);
      const created = await admin.post<{ data: { AuthType: string; TOTPEnabled: boolean } }>(
        '/api/admin/admins',
        anAdmin('oidc'),
      );
      expect(created.status, created.response.body).toBe(200);
      // The provider owns the second factor, as for SAML admins.
      expect(created.body.data).toMatchObject({ AuthType: 'oidc', TOTPEnabled: false });
      expect((await admin.post('/api/admin/admins', anAdmin('oidc'))).status).toBe(409);
      expect((await admin.post('/api/admin/admins', anAdmin('local'))).status).toBe(400);

      // The admin made here signs in through the admins' provider.
      expect((await signInThrough(t.app, provider(), 'admin', 'sub-carol')).headers.location).toBe('/admin/home');
    });
  });

  describe('the authorization request', () => {
    it('asks for the code with PKCE S256, a state and a nonce, and the scopes with openid', async () => {
      const started = await startSignIn(t.app, 'user');

      const url = new URL(started.location);
      expect(url.origin + url.pathname).toBe(`${provider().issuer}/auth`);
      const params = url.searchParams;
      expect(params.get('response_type')).toBe('code');
      expect(params.get('redirect_uri')).toBe(`${PUBLIC_URL}${CALLBACK.user}`);
      expect(params.get('code_challenge_method')).toBe('S256');
      expect(params.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(params.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(params.get('nonce')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(params.get('scope')).toBe('openid profile email groups');
      // The store holds neither the state nor the verifier: only the state's hash and the nonce.
      const flows = await t.ctx.db.selectFrom('oidcFlows').selectAll().execute();
      expect(flows).toHaveLength(1);
      expect(JSON.stringify(flows)).not.toContain(params.get('state'));
      expect(flows[0]?.nonce).toBe(params.get('nonce'));
    });

    it('keeps the flow cookie a browser already has, so sign-ins in two tabs both finish', async () => {
      const first = await startSignIn(t.app, 'user');
      const second = await startSignIn(t.app, 'user', '', first.flowCookie);
      expect(second.flowCookie).toBe(first.flowCookie);
      const callbacks = [
        await provider().signIn(first.location, 'sub-alice'),
        await provider().signIn(second.location, 'sub-alice'),
      ];
      for (const callback of callbacks) {
        expect((await finishSignIn(t.app, callback, first.flowCookie)).headers.location).toBe('/home/new');
      }
    });
  });

  describe('housekeeping', () => {
    it('forgets unfinished sign-ins and logout URLs once their time is over', async () => {
      await startSignIn(t.app, 'user');
      await signInThrough(t.app, provider(), 'user', 'sub-alice');
      expect(await t.ctx.db.selectFrom('oidcFlows').select('id').execute()).toHaveLength(1);
      expect(await t.ctx.db.selectFrom('oidcSignOuts').select('sessionId').execute()).toHaveLength(1);

      t.clock.advance(10 * MINUTE_MS);
      await sweepOnce(t.ctx);
      expect(await t.ctx.db.selectFrom('oidcFlows').select('id').execute()).toEqual([]);
      expect(await t.ctx.db.selectFrom('oidcSignOuts').select('sessionId').execute()).toHaveLength(1);

      // The session lasts the user's Duration (480 minutes by default); its logout URL as long.
      t.clock.advance(480 * MINUTE_MS);
      await sweepOnce(t.ctx);
      expect(await t.ctx.db.selectFrom('oidcSignOuts').select('sessionId').execute()).toEqual([]);
    });
  });

  describe('logout', () => {
    /** The portal's logout, as the browser sends it (same-origin). */
    const logout = async (cookie: string) => (await adminClient(t.app, cookie).post('/api/logout')).response;

    it('answers the provider’s logout URL for a session signed in through it, once', async () => {
      const answer = await signInThrough(t.app, provider(), 'user', 'sub-alice');
      const cookie = sessionCookie(answer, 'user') ?? '';

      const out = await logout(cookie);

      expect(out.statusCode, out.body).toBe(200);
      const url = new URL(out.json<{ data: { EndSessionURL: string } }>().data.EndSessionURL);
      expect(url.origin + url.pathname).toBe(`${provider().issuer}/session/end`);
      expect(url.searchParams.get('post_logout_redirect_uri')).toBe(`${PUBLIC_URL}/`);
      expect(url.searchParams.get('client_id')).toBe(USER_CLIENT.clientId);
      expect(url.searchParams.get('id_token_hint')).toMatch(/^ey/);
      expect((await t.app.inject({ method: 'GET', url: '/api/status', headers: { cookie } })).statusCode).toBe(401);
      expect((await logout(cookie)).json()).toEqual({ data: null });
    });

    it('answers null, as always, for a session not signed in through OpenID Connect', async () => {
      const out = await logout(await givenUserSession(t));
      expect(out.json()).toEqual({ data: null });
    });

    it('answers an admin’s logout with the admins’ provider URL', async () => {
      await givenAdmin(t.ctx, { userName: 'carol', authType: 'oidc', passwordHash: null, totpEnabled: false });
      const cookie = sessionCookie(await signInThrough(t.app, provider(), 'admin', 'sub-carol'), 'admin') ?? '';

      const out = await adminClient(t.app, cookie).post<{ data: { EndSessionURL: string } }>('/api/admin/logout');

      const url = new URL(out.body.data.EndSessionURL);
      expect(url.searchParams.get('post_logout_redirect_uri')).toBe(`${PUBLIC_URL}/admin`);
      expect(url.searchParams.get('client_id')).toBe(ADMIN_CLIENT.clientId);
    });
  });
});
