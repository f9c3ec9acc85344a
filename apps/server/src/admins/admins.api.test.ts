import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCodes } from '@postern/protocol';
import { createTestApp, testStoreKinds, type TestApp } from '../test-support/test-app.js';
import { givenAdmin } from '../test-support/factories.js';
import { cookieFrom, signInAdmin } from '../test-support/http.js';
import { givenEnrolledTotp } from '../test-support/totp.js';

describe.each(testStoreKinds())('admin directory API (%s)', (kind) => {
  let t: TestApp;
  let me: Awaited<ReturnType<typeof givenAdmin>>;
  let cookie: string;
  beforeEach(async () => {
    t = await createTestApp(kind);
    me = await givenAdmin(t.ctx, { userName: 'me' });
    cookie = await signInAdmin(t.app, me.userName, me.password);
  });
  afterEach(async () => {
    await t.close();
  });

  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object, as = cookie) =>
    t.app.inject({ method, url, headers: { cookie: as }, ...(payload === undefined ? {} : { payload }) });
  const update = (id: string, body: object) =>
    call('PUT', `/api/admin/admins/${id}`, { ID: id, Name: 'Name', UserName: 'me', AuthType: 'local', ...body });

  it('creates an admin with TOTP and login on by default', async () => {
    const response = await call('POST', '/api/admin/admins', {
      Name: 'Second',
      UserName: 'second',
      AuthType: 'local',
      PlainPassword: 'second password',
      ConfirmPassword: 'second password',
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
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
    const response = await call('POST', '/api/admin/admins', {
      Name: 'X',
      UserName: 'x',
      AuthType: 'local',
      PlainPassword: 'x password!',
      ConfirmPassword: 'x password!',
      ...change,
    });
    expect(response.statusCode).toBe(status);
    expect(response.json()).toMatchObject(expected);
  });

  it('never enables TOTP for SAML admins', async () => {
    const response = await call('POST', '/api/admin/admins', {
      Name: 'S',
      UserName: 's',
      AuthType: 'SAML',
      TOTPEnabled: true,
    });
    expect(response.json()).toMatchObject({ data: { TOTPEnabled: false } });
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
      const deferred = await call('POST', '/api/admin/otp/verify', { deferEnrolment: true }, pending);
      return cookieFrom(deferred, 'postern_admin_session') ?? '';
    })();
    const ownTotpOff = await call(
      'PUT',
      `/api/admin/admins/${withTotp.id}`,
      { ID: withTotp.id, Name: 'G', UserName: 'guarded', AuthType: 'local', TOTPEnabled: false },
      guardedCookie,
    );
    expect(ownTotpOff.json()).toEqual({ Err: ErrorCodes.cannotDisableOwn2fa });
    expect(
      (await call('DELETE', `/api/admin/admins/${withTotp.id}/totpToken`, undefined, guardedCookie)).json(),
    ).toEqual({
      Err: ErrorCodes.cannotResetOwn2fa,
    });
    expect((await update(me.id, { LoginEnabled: false, TOTPEnabled: false })).json()).toEqual({
      Err: ErrorCodes.cannotDeleteSelf,
      Extra: 'LoginEnabled',
    });
    expect((await call('DELETE', `/api/admin/admins/${me.id}`)).json()).toEqual({ Err: ErrorCodes.cannotDeleteSelf });
  });

  it('disabling another admin’s sign-in ends their sessions', async () => {
    const other = await givenAdmin(t.ctx, { userName: 'colleague' });
    const otherCookie = await signInAdmin(t.app, 'colleague', other.password);
    const response = await call('PUT', `/api/admin/admins/${other.id}`, {
      ID: other.id,
      Name: 'Colleague',
      UserName: 'colleague',
      AuthType: 'local',
      LoginEnabled: false,
      TOTPEnabled: false,
    });
    expect(response.json()).toMatchObject({ data: { LoginEnabled: false } });
    expect((await call('GET', '/api/admin/status', undefined, otherCookie)).statusCode).toBe(401);
  });

  it('changing your own password keeps this session and ends your others', async () => {
    const elsewhere = await signInAdmin(t.app, 'me', me.password);
    const response = await update(me.id, {
      PlainPassword: 'fresh password',
      ConfirmPassword: 'fresh password',
      TOTPEnabled: false,
    });
    expect(response.statusCode).toBe(200);
    expect((await call('GET', '/api/admin/status')).statusCode).toBe(200);
    expect((await call('GET', '/api/admin/status', undefined, elsewhere)).statusCode).toBe(401);
  });

  it('resets another admin’s TOTP so they enrol again with deferrals restored', async () => {
    const other = await givenAdmin(t.ctx, { userName: 'enrolled', totpEnabled: true });
    await givenEnrolledTotp(t, 'admins', other.id);
    expect((await call('DELETE', `/api/admin/admins/${other.id}/totpToken`)).statusCode).toBe(200);
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/admin/login',
      payload: { UserName: 'enrolled', Password: other.password },
    });
    expect(login.json()).toMatchObject({ data: { AdminTotpVerified: false, TotpEnrolmentDeferable: true } });
  });

  it('refuses a change of user name or kind of account, and mismatching IDs', async () => {
    expect((await update(me.id, { UserName: 'renamed', TOTPEnabled: false })).json()).toEqual({
      Err: ErrorCodes.cannotChangeIdentity,
    });
    expect((await update(me.id, { ID: 'other', TOTPEnabled: false })).json()).toEqual({
      Err: ErrorCodes.mismatchingIds,
    });
  });

  it('lists admins without secrets', async () => {
    const list = await call('GET', '/api/admin/admins');
    expect(list.statusCode).toBe(200);
    expect(JSON.stringify(list.json())).not.toMatch(/argon2/);
    expect(list.json<{ data: { UserName: string }[] }>().data.map((admin) => admin.UserName)).toEqual(['me']);
  });
});
