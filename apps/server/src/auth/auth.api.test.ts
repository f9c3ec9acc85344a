import { describe, expect, it } from 'vitest';
import { AuditActions, ErrorCodes, KIOSK_SESSION_MINUTES_DEFAULT } from '@postern/protocol';
import { useTestApp } from '../test-support/use-test-app.js';
import { bothStores } from '../test-support/store-kinds.js';
import { givenAdmin, givenUser, PASSWORD_TEST_TIMEOUT_MS } from '../test-support/factories.js';
import { cookieFrom, setCookies, signInUser } from '../test-support/http.js';
import { givenAdminSession, givenUserSession } from '../test-support/sessions.js';
import { adminClient } from '../test-support/admin-client.js';
import { recentAudit } from '../audit/audit.js';

const MINUTE = 60_000;

// The auth feature's smoke file (store-kinds.ts): its sign-ins run on both stores. Signing in is what
// most tests here look at, so they sign in for real (argon2id); the rest are given their sessions.
describe.each(bothStores())('sign-in and sessions (%s)', { timeout: PASSWORD_TEST_TIMEOUT_MS }, (kind) => {
  const t = useTestApp(kind);

  const login = (body: object) => t.app.inject({ method: 'POST', url: '/api/login', payload: body });
  const adminLogin = (body: object) => t.app.inject({ method: 'POST', url: '/api/admin/login', payload: body });
  const status = (cookie?: string) =>
    t.app.inject({ method: 'GET', url: '/api/status', headers: cookie === undefined ? {} : { cookie } });
  const adminStatus = (cookie = '') => adminClient(t.app, cookie).get('/api/admin/status');

  it('signs a local user in, answers with the session and sets a hardened cookie', async () => {
    const user = await givenUser(t.ctx, { name: 'Ada Lovelace', userName: 'ada' });
    const response = await login({ UserName: 'ada', Password: user.password, KioskMode: false });

    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      data: {
        Name: 'Ada Lovelace',
        UserName: 'ada',
        AuthType: 'local',
        Ends: new Date(t.clock.now() + 480 * MINUTE).toISOString(),
        KioskMode: false,
        NewUserDashboard: true,
      },
    });
    const [cookie] = setCookies(response);
    expect(cookie).toMatch(/^__Host-postern_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('Secure');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).toContain('Path=/');
    expect(cookie).toContain('Expires=');
  });

  it('gives a wrong password and an unknown user name the same 401 err.invalidCredentials', async () => {
    const user = await givenUser(t.ctx, { userName: 'grace' });
    const wrongPassword = await login({ UserName: 'grace', Password: `${user.password}x` });
    const unknownUser = await login({ UserName: 'nobody', Password: user.password });

    for (const response of [wrongPassword, unknownUser]) {
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ Err: ErrorCodes.invalidCredentials });
      expect(setCookies(response)).toEqual([]);
    }
  });

  it('refuses the password form to accounts that sign in elsewhere, with the same answer', async () => {
    await givenUser(t.ctx, { userName: 'sso-person', authType: 'SAML', passwordHash: null });
    const response = await login({ UserName: 'sso-person', Password: 'anything at all' });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ Err: ErrorCodes.invalidCredentials });
  });

  it('tells a disabled or expired account so only after the right password', async () => {
    const disabled = await givenUser(t.ctx, { disabled: true });
    const expired = await givenUser(t.ctx, { validUntil: t.clock.now() - MINUTE });

    for (const user of [disabled, expired]) {
      const right = await login({ UserName: user.userName, Password: user.password });
      expect(right.statusCode).toBe(403);
      expect(right.json()).toEqual({ Err: ErrorCodes.accountDisabled });
      const wrong = await login({ UserName: user.userName, Password: 'not the password' });
      expect(wrong.json()).toEqual({ Err: ErrorCodes.invalidCredentials });
    }
  });

  it('ends a session no later than the account expires', async () => {
    const validUntil = t.clock.now() + 30 * MINUTE;
    const user = await givenUser(t.ctx, { validUntil });
    const response = await login({ UserName: user.userName, Password: user.password });
    expect(response.json<{ data: { Ends: string } }>().data.Ends).toBe(new Date(validUntil).toISOString());
  });

  it('gives a kiosk sign-in the kiosk duration and a cookie that dies with the browser', async () => {
    const user = await givenUser(t.ctx);
    const response = await login({ UserName: user.userName, Password: user.password, KioskMode: true });

    expect(response.json<{ data: { Ends: string; KioskMode: boolean } }>().data).toMatchObject({
      KioskMode: true,
      Ends: new Date(t.clock.now() + KIOSK_SESSION_MINUTES_DEFAULT * MINUTE).toISOString(),
    });
    expect(setCookies(response)[0]).not.toContain('Expires=');
    expect(setCookies(response)[0]).not.toContain('Max-Age=');
  });

  it('answers 401 err.invalidSession without a session, with a forged one and after expiry', async () => {
    const cookie = await givenUserSession(t, await givenUser(t.ctx, { durationMinutes: 10 }));
    expect((await status(cookie)).statusCode).toBe(200);

    expect((await status()).json()).toEqual({ Err: ErrorCodes.invalidSession });
    const forged = await status('__Host-postern_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    expect(forged.statusCode).toBe(401);

    t.clock.advance(10 * MINUTE);
    const expired = await status(cookie);
    expect(expired.statusCode).toBe(401);
    expect(expired.json()).toEqual({ Err: ErrorCodes.invalidSession });
  });

  it('ends the session at logout, clears the cookie and audits both', async () => {
    const user = await givenUser(t.ctx, { userName: 'lin' });
    const cookie = await signInUser(t.app, 'lin', user.password);

    const logout = await t.app.inject({ method: 'POST', url: '/api/logout', headers: { cookie } });
    expect(logout.statusCode).toBe(200);
    expect(logout.json()).toEqual({ data: null });
    expect(setCookies(logout)[0]).toMatch(/^__Host-postern_session=;.*Expires=Thu, 01 Jan 1970/);
    expect((await status(cookie)).statusCode).toBe(401);

    const actions = (await recentAudit(t.ctx.db, 10)).map((entry) => Object.keys(entry.Entry)[0]);
    expect(actions).toEqual([AuditActions.UserLogout, AuditActions.UserLogin]);
  });

  it('treats logout without a session as done', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/api/logout' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ data: null });
  });

  it('issues a new token on every sign-in and ends the one it replaces', async () => {
    const user = await givenUser(t.ctx);
    const first = await givenUserSession(t, user);
    const second = await t.app.inject({
      method: 'POST',
      url: '/api/login',
      headers: { cookie: first },
      payload: { UserName: user.userName, Password: user.password },
    });
    const secondCookie = cookieFrom(second, 'postern_session');

    expect(secondCookie).toBeDefined();
    expect(secondCookie).not.toBe(first);
    expect((await status(first)).statusCode).toBe(401);
    expect((await status(secondCookie)).statusCode).toBe(200);
  });

  it('audits a failed sign-in with the name tried and the address', async () => {
    await login({ UserName: 'mallory', Password: 'guess guess' });
    const [entry] = await recentAudit(t.ctx.db, 1);
    expect(entry?.Entry).toEqual({ [AuditActions.UserLoginFailed]: { UserName: 'mallory', IpAddress: '127.0.0.1' } });
  });

  it('signs an admin in with a strict cookie of its own and signs them out', async () => {
    const admin = await givenAdmin(t.ctx, { userName: 'root-admin', name: 'Root' });
    const response = await adminLogin({ UserName: 'root-admin', Password: admin.password });

    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      data: {
        Name: 'Root',
        UserName: 'root-admin',
        AuthType: 'local',
        TotpEnabled: false,
        AdminTotpVerified: false,
        TotpEnrolmentDeferable: false,
        HasPasskeys: false,
      },
    });
    const [cookie] = setCookies(response);
    expect(cookie).toMatch(/^__Host-postern_admin_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('Secure');

    const adminCookie = cookieFrom(response, 'postern_admin_session');
    expect((await adminStatus(adminCookie)).status).toBe(200);
    await adminClient(t.app, adminCookie ?? '').post('/api/admin/logout');
    expect((await adminStatus(adminCookie)).status).toBe(401);
  });

  it('keeps the realms apart: a user cookie opens no admin API and an admin cookie no user API', async () => {
    const user = await givenUser(t.ctx, { userName: 'same-name' });
    const admin = await givenAdmin(t.ctx, { userName: 'same-name' });
    const userCookie = await givenUserSession(t, user);
    const adminCookie = await givenAdminSession(t, admin);

    expect((await adminStatus(userCookie)).status).toBe(401);
    expect((await status(adminCookie)).statusCode).toBe(401);
    // The admin password is not a user password, nor the other way round.
    expect((await login({ UserName: 'same-name', Password: admin.password })).statusCode).toBe(401);
    expect((await adminLogin({ UserName: 'same-name', Password: user.password })).statusCode).toBe(401);
  });

  it('refuses an admin whose login is disabled, only after the right password', async () => {
    const admin = await givenAdmin(t.ctx, { loginEnabled: false });
    const right = await adminLogin({ UserName: admin.userName, Password: admin.password });
    expect(right.statusCode).toBe(403);
    expect(right.json()).toEqual({ Err: ErrorCodes.loginNotPermitted });
    const wrong = await adminLogin({ UserName: admin.userName, Password: 'wrong password' });
    expect(wrong.json()).toEqual({ Err: ErrorCodes.invalidCredentials });
  });

  it('validates the sign-in body and names the field', async () => {
    const response = await login({ UserName: '', Password: 'x' });
    expect(response.statusCode).toBe(400);
    expect(response.json<{ Err: string; Extra: string }>()).toMatchObject({ Err: ErrorCodes.badRequest });
    expect(response.json<{ Extra: string }>().Extra).toMatch(/^UserName: /);

    const wrongType = await login({ UserName: 'a', Password: 'b', KioskMode: 'yes' });
    expect(wrongType.json<{ Extra: string }>().Extra).toMatch(/^KioskMode: /);
  });

  it('uses plain cookie names without Secure in plain-HTTP development mode', async () => {
    // Read at each request (http/cookies.ts), so the test sets it; the next test has it off again.
    t.ctx.config.insecureHttp = true;
    const user = await givenUser(t.ctx);
    const response = await login({ UserName: user.userName, Password: user.password });
    const [cookie] = setCookies(response);
    expect(cookie).toMatch(/^postern_session=/);
    expect(cookie).not.toContain('Secure');
    expect((await status(cookieFrom(response, 'postern_session'))).statusCode).toBe(200);
  });
});
