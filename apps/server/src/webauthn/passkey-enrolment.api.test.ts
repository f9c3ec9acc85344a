import { describe, expect, it } from 'vitest';
import { AuditActions, ErrorCodes } from '@postern/protocol';
import { useTestApp } from '../test-support/use-test-app.js';
import { givenAdmin, givenUser, PASSWORD_TEST_TIMEOUT_MS } from '../test-support/factories.js';
import { givenAdminSession, givenUserSession } from '../test-support/sessions.js';
import { givenEnrolledTotp } from '../test-support/totp.js';
import { cookieFrom } from '../test-support/http.js';
import { PasskeyClient } from '../test-support/passkeys.js';
import { recentAudit } from '../audit/audit.js';

/** A passkey as an account's second factor: enrolled at sign-in, asked for at the next, kept as the last one. */
describe('passkeys as the second factor (sqlite)', { timeout: PASSWORD_TEST_TIMEOUT_MS }, () => {
  const t = useTestApp('sqlite');

  const get = (url: string, cookie: string) => t.app.inject({ url, headers: { cookie } });

  it('finishes a user sign-in waiting to enrol: Outcome Enrolled, the cookie replaced by a full session', async () => {
    const user = await givenUser(t.ctx, { totpEnabled: true });
    const pending = await givenUserSession(t, user, { stage: 'totp-enrol', kiosk: true });
    const client = new PasskeyClient(t, 'user');

    const response = await client.register(pending, { name: 'Security key', discoverable: false });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      data: { Outcome: 'Enrolled', Passkey: { Name: 'Security key', Discoverable: false } },
    });
    const full = client.cookieOf(response);
    expect(full).toBeDefined();
    expect(full).not.toBe(pending);
    // A kiosk sign-in keeps its cookie for the browser's life, as TOTP enrolment does.
    expect(String(response.headers['set-cookie'])).not.toMatch(/Expires=/);
    expect((await get('/api/status', full ?? '')).json()).toMatchObject({ data: { KioskMode: true } });
    expect((await get('/api/status', pending)).statusCode).toBe(401);
    const entries = (await recentAudit(t.ctx.db, 2)).map((entry) => entry.Entry);
    expect(entries).toEqual([
      {
        [AuditActions.UserLogin]: {
          UserName: user.userName,
          IpAddress: '127.0.0.1',
          Description: 'passkey "Security key" enrolled',
        },
      },
      { [AuditActions.PasskeyAdded]: { UserName: user.userName, IpAddress: '127.0.0.1', Description: 'Security key' } },
    ]);
  });

  it('finishes an admin sign-in waiting to enrol the same way', async () => {
    const admin = await givenAdmin(t.ctx, { totpEnabled: true });
    const pending = await givenAdminSession(t, admin, { stage: 'totp-enrol' });
    const client = new PasskeyClient(t, 'admin');
    const response = await client.register(pending);
    expect(response.json()).toMatchObject({ data: { Outcome: 'Enrolled' } });
    expect((await get('/api/admin/status', client.cookieOf(response) ?? '')).statusCode).toBe(200);
  });

  it('lets a sign-in waiting to verify its factor add no passkey before passing it', async () => {
    const user = await givenUser(t.ctx, { totpEnabled: true });
    await givenEnrolledTotp(t, 'users', user.id);
    const pending = await givenUserSession(t, user, { stage: 'totp' });
    const response = await new PasskeyClient(t, 'user').call('POST', '/registration/options', pending);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ Err: ErrorCodes.alreadyVerified2fa });
  });

  it('asks an account with a passkey and no authenticator app to verify, not enrol; a TOTP code cannot pass', async () => {
    const user = await givenUser(t.ctx, { totpEnabled: true });
    const client = new PasskeyClient(t, 'user');
    await client.givenPasskey(await givenUserSession(t, user));

    const login = await t.app.inject({
      method: 'POST',
      url: '/api/login',
      payload: { UserName: user.userName, Password: user.password },
    });
    expect(login.statusCode).toBe(401);
    expect(login.json()).toEqual({ Err: ErrorCodes.totpVerificationRequired });
    const pending = cookieFrom(login, 'postern_session') ?? '';
    const code = await t.app.inject({
      method: 'POST',
      url: '/api/otp/verify',
      headers: { cookie: pending },
      payload: { Code: '123456' },
    });
    expect(code.statusCode).toBe(400);
    expect(code.json()).toEqual({ Err: ErrorCodes.totpNotEnabled });
    expect((await client.secondFactor(pending)).statusCode).toBe(200);
  });

  it('tells the admin console a pending admin holds passkeys, and offers no postponing of an enrolment', async () => {
    const admin = await givenAdmin(t.ctx, { totpEnabled: true });
    const client = new PasskeyClient(t, 'admin');
    await client.givenPasskey(await givenAdminSession(t, admin));
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/admin/login',
      payload: { UserName: admin.userName, Password: admin.password },
    });
    expect(login.json()).toMatchObject({
      data: { TotpEnabled: true, AdminTotpVerified: false, TotpEnrolmentDeferable: false, HasPasskeys: true },
    });
    const pending = cookieFrom(login, 'postern_admin_session') ?? '';
    expect((await get('/api/admin/session', pending)).json()).toMatchObject({ data: { HasPasskeys: true } });
    const verified = await client.secondFactor(pending);
    expect(verified.json()).toEqual({ data: { Outcome: 'SignedIn' } });
    expect((await get('/api/admin/status', client.cookieOf(verified) ?? '')).statusCode).toBe(200);
  });

  it('answers a pending sign-in of an account without passkeys err.noPasskeys, a finished one userAlreadyVerified', async () => {
    const user = await givenUser(t.ctx, { totpEnabled: true });
    await givenEnrolledTotp(t, 'users', user.id);
    const client = new PasskeyClient(t, 'user');
    const pending = await client.call(
      'POST',
      '/authentication/options',
      await givenUserSession(t, user, { stage: 'totp' }),
    );
    expect(pending.statusCode).toBe(409);
    expect(pending.json()).toEqual({ Err: ErrorCodes.noPasskeys });
    const active = await client.call('POST', '/authentication/options', await givenUserSession(t, user));
    expect(active.json()).toEqual({ Err: ErrorCodes.userAlreadyVerified });
  });

  it('counts passkey failures on the second-factor throttle the codes share', async () => {
    const user = await givenUser(t.ctx, { totpEnabled: true });
    const client = new PasskeyClient(t, 'user');
    await client.givenPasskey(await givenUserSession(t, user));
    const pending = await givenUserSession(t, user, { stage: 'totp' });
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 4; attempt += 1) {
      statuses.push((await client.secondFactor(pending, { userVerified: false })).statusCode);
    }
    // Three free attempts, then the account waits (second-factor-throttle.ts).
    expect(statuses).toEqual([401, 401, 401, 429]);
  });

  it('keeps the last second factor: its only passkey goes once an authenticator app is verified', async () => {
    const user = await givenUser(t.ctx, { totpEnabled: true });
    const cookie = await givenUserSession(t, user);
    const client = new PasskeyClient(t, 'user');
    const first = await client.givenPasskey(cookie, 'First');
    const second = await client.givenPasskey(cookie, 'Second');

    expect((await client.call('DELETE', `/credentials/${first.id}`, cookie)).statusCode).toBe(200);
    const last = await client.call('DELETE', `/credentials/${second.id}`, cookie);
    expect(last.statusCode).toBe(409);
    expect(last.json()).toEqual({ Err: ErrorCodes.lastSecondFactor });

    await givenEnrolledTotp(t, 'users', user.id);
    expect((await client.call('DELETE', `/credentials/${second.id}`, cookie)).statusCode).toBe(200);
  });
});
