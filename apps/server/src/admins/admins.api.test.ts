import { beforeEach, describe, expect, it } from 'vitest';
import { ErrorCodes } from '@postern/protocol';
import { bothStores } from '../test-support/store-kinds.js';
import { useTestApp } from '../test-support/use-test-app.js';
import { givenAdmin, PASSWORD_TEST_TIMEOUT_MS } from '../test-support/factories.js';
import { cookieFrom } from '../test-support/http.js';
import { givenAdminSession } from '../test-support/sessions.js';
import { adminClient, type AdminClient } from '../test-support/admin-client.js';
import { givenEnrolledTotp } from '../test-support/totp.js';

// Creating admins with passwords and signing them in hash with argon2id.
describe.each(bothStores())('admin directory API (%s)', { timeout: PASSWORD_TEST_TIMEOUT_MS }, (kind) => {
  const t = useTestApp(kind);
  let me: Awaited<ReturnType<typeof givenAdmin>>;
  let admin: AdminClient;
  beforeEach(async () => {
    me = await givenAdmin(t.ctx, { userName: 'me' });
    admin = adminClient(t.app, await givenAdminSession(t, me));
  });

  const update = (id: string, body: object) =>
    admin.put(`/api/admin/admins/${id}`, { ID: id, Name: 'Name', UserName: 'me', AuthType: 'local', ...body });

  it('creates an admin with TOTP and login on by default', async () => {
    const response = await admin.post('/api/admin/admins', {
      Name: 'Second',
      UserName: 'second',
      AuthType: 'local',
      PlainPassword: 'second password',
      ConfirmPassword: 'second password',
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      data: { Name: 'Second', UserName: 'second', TOTPEnabled: true, LoginEnabled: true, TOTPVerified: false },
    });
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/admin/login',
      payload: { UserName: 'second', Password: 'second password' },
    });
    expect(login.json()).toMatchObject({
      data: { TotpEnabled: true, AdminTotpVerified: false, TotpEnrolmentDeferable: true },
    });
  });

  it.each([
    ['a duplicate user name', { UserName: 'me' }, 409, { Err: ErrorCodes.adminNameExists, Extra: 'UserName' }],
    ['no password', { PlainPassword: '' }, 400, { Err: ErrorCodes.passwordLength, Extra: 'PlainPassword' }],
    [
      'a mismatched confirmation',
      { ConfirmPassword: 'nope nope nope' },
      400,
      { Err: ErrorCodes.passwordsDontMatch, Extra: 'ConfirmPassword' },
    ],
    [
      'an LDAP admin without a DN',
      { AuthType: 'LDAP', PlainPassword: undefined, ConfirmPassword: undefined },
      400,
      { Err: ErrorCodes.ldapDnRequired },
    ],
  ])('refuses to create an admin with %s', async (_name, change, status, expected) => {
    const response = await admin.post('/api/admin/admins', {
      Name: 'X',
      UserName: 'x',
      AuthType: 'local',
      PlainPassword: 'x password!',
      ConfirmPassword: 'x password!',
      ...change,
    });
    expect(response.status).toBe(status);
    expect(response.body).toMatchObject(expected);
  });

  it('never enables TOTP for SAML admins', async () => {
    const response = await admin.post('/api/admin/admins', {
      Name: 'S',
      UserName: 's',
      AuthType: 'SAML',
      TOTPEnabled: true,
    });
    expect(response.body).toMatchObject({ data: { TOTPEnabled: false } });
  });

  it('protects admins from locking themselves out', async () => {
    const withTotp = await givenAdmin(t.ctx, { userName: 'guarded', totpEnabled: true });
    const guardedCookie = await (async () => {
      const secretLogin = await t.app.inject({
        method: 'POST',
        url: '/api/admin/login',
        payload: { UserName: 'guarded', Password: withTotp.password },
      });
      const pending = cookieFrom(secretLogin, 'postern_admin_session') ?? '';
      const deferred = await adminClient(t.app, pending).post('/api/admin/otp/verify', { deferEnrolment: true });
      return cookieFrom(deferred.response, 'postern_admin_session') ?? '';
    })();
    const guarded = adminClient(t.app, guardedCookie);
    const ownTotpOff = await guarded.put(`/api/admin/admins/${withTotp.id}`, {
      ID: withTotp.id,
      Name: 'G',
      UserName: 'guarded',
      AuthType: 'local',
      TOTPEnabled: false,
    });
    expect(ownTotpOff.body).toEqual({ Err: ErrorCodes.cannotDisableOwn2fa });
    expect((await guarded.delete(`/api/admin/admins/${withTotp.id}/totpToken`)).body).toEqual({
      Err: ErrorCodes.cannotResetOwn2fa,
    });
    expect((await update(me.id, { LoginEnabled: false, TOTPEnabled: false })).body).toEqual({
      Err: ErrorCodes.cannotDeleteSelf,
      Extra: 'LoginEnabled',
    });
    expect((await admin.delete(`/api/admin/admins/${me.id}`)).body).toEqual({ Err: ErrorCodes.cannotDeleteSelf });
  });

  it('disabling another admin’s sign-in ends their sessions', async () => {
    const other = await givenAdmin(t.ctx, { userName: 'colleague' });
    const colleague = adminClient(t.app, await givenAdminSession(t, other));
    const response = await admin.put(`/api/admin/admins/${other.id}`, {
      ID: other.id,
      Name: 'Colleague',
      UserName: 'colleague',
      AuthType: 'local',
      LoginEnabled: false,
      TOTPEnabled: false,
    });
    expect(response.body).toMatchObject({ data: { LoginEnabled: false } });
    expect((await colleague.get('/api/admin/status')).status).toBe(401);
  });

  it('changing your own password keeps this session and ends your others', async () => {
    const elsewhere = adminClient(t.app, await givenAdminSession(t, me));
    const response = await update(me.id, {
      PlainPassword: 'fresh password',
      ConfirmPassword: 'fresh password',
      TOTPEnabled: false,
    });
    expect(response.status).toBe(200);
    expect((await admin.get('/api/admin/status')).status).toBe(200);
    expect((await elsewhere.get('/api/admin/status')).status).toBe(401);
  });

  it('resets another admin’s TOTP so they enrol again with deferrals restored', async () => {
    const other = await givenAdmin(t.ctx, { userName: 'enrolled', totpEnabled: true });
    await givenEnrolledTotp(t, 'admins', other.id);
    expect((await admin.delete(`/api/admin/admins/${other.id}/totpToken`)).status).toBe(200);
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/admin/login',
      payload: { UserName: 'enrolled', Password: other.password },
    });
    expect(login.json()).toMatchObject({ data: { AdminTotpVerified: false, TotpEnrolmentDeferable: true } });
  });

  it('refuses a change of user name or kind of account, and mismatching IDs', async () => {
    expect((await update(me.id, { UserName: 'renamed', TOTPEnabled: false })).body).toEqual({
      Err: ErrorCodes.cannotChangeIdentity,
    });
    expect((await update(me.id, { ID: 'other', TOTPEnabled: false })).body).toEqual({
      Err: ErrorCodes.mismatchingIds,
    });
  });

  it('lists admins without secrets', async () => {
    const list = await admin.get<{ data: { UserName: string }[] }>('/api/admin/admins');
    expect(list.status).toBe(200);
    expect(list.response.body).not.toMatch(/argon2/);
    expect(list.body.data.map((row) => row.UserName)).toEqual(['me']);
  });
});
