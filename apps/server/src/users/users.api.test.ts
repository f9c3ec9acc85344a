import { beforeEach, describe, expect, it } from 'vitest';
import { AuditActions, ErrorCodes } from '@postern/protocol';
import { bothStores } from '../test-support/store-kinds.js';
import { useTestApp } from '../test-support/use-test-app.js';
import { givenAdmin, givenKnoc, givenUser, PASSWORD_TEST_TIMEOUT_MS } from '../test-support/factories.js';
import { signInUser } from '../test-support/http.js';
import { givenAdminSession, givenUserSession } from '../test-support/sessions.js';
import { adminClient, type AdminClient } from '../test-support/admin-client.js';
import { givenEnrolledTotp } from '../test-support/totp.js';
import { recentAudit } from '../audit/audit.js';

const VALID_LOCAL = {
  Name: 'Grace Hopper',
  UserName: 'grace.hopper',
  AuthType: 'local',
  PlainPassword: 'a long passphrase',
  ConfirmPassword: 'a long passphrase',
};

// Creating users with passwords and signing them in hash with argon2id.
describe.each(bothStores())('user directory API (%s)', { timeout: PASSWORD_TEST_TIMEOUT_MS }, (kind) => {
  const t = useTestApp(kind);
  let admin: AdminClient;
  beforeEach(async () => {
    admin = adminClient(t.app, await givenAdminSession(t, await givenAdmin(t.ctx, { userName: 'dir-admin' })));
  });

  const create = (body: object) => admin.post('/api/admin/users', body);

  it('creates a local user with the spec’s defaults and shows no secrets', async () => {
    const response = await create(VALID_LOCAL);
    expect(response.status).toBe(200);
    const { User, PlaintextKey } = (response.body as { data: { User: Record<string, unknown>; PlaintextKey: null } })
      .data;
    expect(PlaintextKey).toBeNull();
    expect(User).toMatchObject({
      Name: 'Grace Hopper',
      UserName: 'grace.hopper',
      Company: '',
      Duration: 480,
      SessionLimit: null,
      AuthType: 'local',
      TOTPEnabled: false,
      Disabled: false,
      ValidUntil: null,
      AclIds: [],
      ActiveSession: false,
      LastLogin: null,
    });
    expect(JSON.stringify(User)).not.toMatch(/argon2|passphrase/);
    // The new user can sign in with the password.
    await signInUser(t.app, 'grace.hopper', 'a long passphrase');
    const [entry] = await recentAudit(t.ctx.db, 2);
    expect(Object.keys(entry?.Entry ?? {})).toEqual([AuditActions.UserLogin]);
  });

  it.each([
    ['a missing name', { ...VALID_LOCAL, Name: '' }, { Err: ErrorCodes.badRequest }, /^Name: /],
    ['a missing user name', { ...VALID_LOCAL, UserName: ' ' }, { Err: ErrorCodes.badRequest }, /^UserName: /],
    [
      'a short password',
      { ...VALID_LOCAL, PlainPassword: 'short', ConfirmPassword: 'short' },
      { Err: ErrorCodes.passwordLength, Extra: 'PlainPassword' },
      null,
    ],
    [
      'a long password',
      { ...VALID_LOCAL, PlainPassword: 'x'.repeat(65), ConfirmPassword: 'x'.repeat(65) },
      { Err: ErrorCodes.passwordLength, Extra: 'PlainPassword' },
      null,
    ],
    [
      'no password for a local user',
      { ...VALID_LOCAL, PlainPassword: '', ConfirmPassword: '' },
      { Err: ErrorCodes.passwordLength, Extra: 'PlainPassword' },
      null,
    ],
    [
      'a different confirmation',
      { ...VALID_LOCAL, ConfirmPassword: 'something else' },
      { Err: ErrorCodes.passwordsDontMatch, Extra: 'ConfirmPassword' },
      null,
    ],
    [
      'an LDAP user without a DN',
      { Name: 'L', UserName: 'l', AuthType: 'LDAP' },
      { Err: ErrorCodes.ldapDnRequired, Extra: 'ThirdPartyAuth.DN' },
      null,
    ],
    [
      'a zero duration',
      { ...VALID_LOCAL, Duration: 0 },
      { Err: ErrorCodes.userDurationRange, Extra: 'Duration' },
      null,
    ],
    [
      'a fractional duration',
      { ...VALID_LOCAL, Duration: 1.5 },
      { Err: ErrorCodes.userDurationRange, Extra: 'Duration' },
      null,
    ],
    [
      'a duration longer than a year',
      { ...VALID_LOCAL, Duration: 525_601 },
      { Err: ErrorCodes.userDurationRange, Extra: 'Duration' },
      null,
    ],
    ['a zero session limit', { ...VALID_LOCAL, SessionLimit: 0 }, { Err: ErrorCodes.badRequest }, /^SessionLimit: /],
    [
      'a session limit beyond what the store holds',
      { ...VALID_LOCAL, SessionLimit: 10 ** 12 },
      { Err: ErrorCodes.badRequest },
      /^SessionLimit: /,
    ],
    ['an unknown auth type', { ...VALID_LOCAL, AuthType: 'kerberos' }, { Err: ErrorCodes.badRequest }, /^AuthType: /],
    [
      'a ValidUntil that is not a date-time',
      { ...VALID_LOCAL, ValidUntil: '2027-01-01' },
      { Err: ErrorCodes.badRequest },
      /^ValidUntil: /,
    ],
  ])('refuses %s', async (_name, body, expected, extra) => {
    const response = await create(body);
    expect(response.status).toBe(400);
    const answer = response.body as { Err: string; Extra?: string };
    expect(answer).toMatchObject(expected);
    if (extra !== null) expect(answer.Extra).toMatch(extra);
  });

  it('keeps user names unique', async () => {
    await create(VALID_LOCAL);
    const duplicate = await create(VALID_LOCAL);
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toEqual({ Err: ErrorCodes.userNameExists, Extra: 'UserName' });
  });

  it('creates an API-key user with a key scoped to it, shown once', async () => {
    const response = await create({ Name: 'CI robot', UserName: 'ci', AuthType: 'apikey', ApiKey: { Name: 'ci key' } });
    const { User, PlaintextKey } = (response.body as { data: { User: { ID: string }; PlaintextKey: string } }).data;
    expect(PlaintextKey).toMatch(/^pst_[A-Za-z0-9_-]{43}$/);
    const keys = ((await admin.get('/api/admin/api-keys')).body as { data: { Name: string; Scopes: string[] }[] }).data;
    expect(keys).toEqual([expect.objectContaining({ Name: 'ci key', Scopes: [`user.auth:${User.ID}`] })]);
    expect(JSON.stringify(keys)).not.toContain(PlaintextKey);
  });

  it('never turns on TOTP for SAML or API-key users', async () => {
    const saml = await create({ Name: 'S', UserName: 's', AuthType: 'SAML', TOTPEnabled: true });
    expect((saml.body as { data: { User: { TOTPEnabled: boolean } } }).data.User.TOTPEnabled).toBe(false);
  });

  it('updates a user, replaces their ACLs and ends their sessions when the password changes', async () => {
    const user = await givenUser(t.ctx, { userName: 'editable' });
    const userCookie = await givenUserSession(t, user);
    const knoc = await givenKnoc(t.ctx);
    const body = {
      ID: user.id,
      Name: 'Renamed',
      UserName: 'editable',
      AuthType: 'local',
      Company: 'Acme',
      Duration: 60,
      AclIds: [knoc.id],
    };
    const kept = await admin.put(`/api/admin/users/${user.id}`, body);
    expect(kept.body).toMatchObject({ data: { Name: 'Renamed', Company: 'Acme', Duration: 60, AclIds: [knoc.id] } });
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/status', headers: { cookie: userCookie } })).statusCode,
    ).toBe(200);

    await admin.put(`/api/admin/users/${user.id}`, {
      ...body,
      PlainPassword: 'new password!',
      ConfirmPassword: 'new password!',
    });
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/status', headers: { cookie: userCookie } })).statusCode,
    ).toBe(401);
    await signInUser(t.app, 'editable', 'new password!');
    expect((await admin.get(`/api/admin/users/${user.id}/acls`)).body).toEqual({
      data: [{ ID: knoc.id, Description: knoc.description }],
    });
  });

  it.each([
    ['a different ID in the body', (id: string) => ({ ID: `${id}x` }), ErrorCodes.mismatchingIds],
    ['a new user name', () => ({ UserName: 'other-name' }), ErrorCodes.cannotChangeIdentity],
    [
      'a new kind of account',
      () => ({ AuthType: 'LDAP', ThirdPartyAuth: { DN: 'uid=x' } }),
      ErrorCodes.cannotChangeIdentity,
    ],
  ])('refuses an update with %s', async (_name, change, code) => {
    const user = await givenUser(t.ctx, { userName: 'fixed' });
    const response = await admin.put(`/api/admin/users/${user.id}`, {
      ID: user.id,
      Name: 'Fixed',
      UserName: 'fixed',
      AuthType: 'local',
      ...change(user.id),
    });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ Err: code });
  });

  it('refuses to edit SAML users and a password for non-local users', async () => {
    const saml = await givenUser(t.ctx, { authType: 'SAML', passwordHash: null, userName: 'idp-person' });
    const samlUpdate = await admin.put(`/api/admin/users/${saml.id}`, {
      ID: saml.id,
      Name: 'x',
      UserName: 'idp-person',
      AuthType: 'SAML',
    });
    expect(samlUpdate.body).toEqual({ Err: ErrorCodes.cannotChangeIdentity });
    const ldap = await givenUser(t.ctx, {
      authType: 'LDAP',
      passwordHash: null,
      ldapDn: 'uid=l',
      userName: 'ldap-person',
    });
    const ldapUpdate = await admin.put(`/api/admin/users/${ldap.id}`, {
      ID: ldap.id,
      Name: 'x',
      UserName: 'ldap-person',
      AuthType: 'LDAP',
      ThirdPartyAuth: { DN: 'uid=l' },
      PlainPassword: 'a new password',
      ConfirmPassword: 'a new password',
    });
    expect(ldapUpdate.body).toEqual({ Err: ErrorCodes.cannotChangeIdentity });
  });

  it('refuses unknown ACLs', async () => {
    const user = await givenUser(t.ctx, { userName: 'acl-person' });
    const response = await admin.put(`/api/admin/users/${user.id}`, {
      ID: user.id,
      Name: 'x',
      UserName: 'acl-person',
      AuthType: 'local',
      AclIds: ['no-such-knoc'],
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ Err: ErrorCodes.badRequest, Extra: 'AclIds: unknown no-such-knoc' });
  });

  it('disabling a user ends their sessions and keeps them out', async () => {
    const user = await givenUser(t.ctx, { userName: 'leaver' });
    const userCookie = await givenUserSession(t, user);
    await admin.put(`/api/admin/users/${user.id}`, {
      ID: user.id,
      Name: user.name,
      UserName: 'leaver',
      AuthType: 'local',
      Disabled: true,
    });
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/status', headers: { cookie: userCookie } })).statusCode,
    ).toBe(401);
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/login',
      payload: { UserName: 'leaver', Password: user.password },
    });
    expect(login.json()).toEqual({ Err: ErrorCodes.accountDisabled });
  });

  it('deletes a user after ending their sessions', async () => {
    const user = await givenUser(t.ctx, { userName: 'gone' });
    await givenUserSession(t, user);
    const ended: string[] = [];
    t.ctx.sessionEvents.onUserSessionsEnded((sessions) => {
      ended.push(...sessions.map((s) => s.reason));
    });
    expect((await admin.delete(`/api/admin/users/${user.id}`)).status).toBe(200);
    expect(ended).toEqual(['account-deleted']);
    expect((await admin.get(`/api/admin/users/${user.id}`)).status).toBe(404);
  });

  it('resets a user’s second factor so they enrol again', async () => {
    const user = await givenUser(t.ctx, { totpEnabled: true, userName: 'two-factor' });
    await givenEnrolledTotp(t, 'users', user.id);
    expect((await admin.delete(`/api/admin/users/${user.id}/totpToken`)).status).toBe(200);
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/login',
      payload: { UserName: 'two-factor', Password: user.password },
    });
    expect(login.json()).toEqual({ Err: ErrorCodes.totpEnrolmentRequired });
    const plain = await givenUser(t.ctx);
    expect((await admin.delete(`/api/admin/users/${plain.id}/totpToken`)).body).toEqual({
      Err: ErrorCodes.totpNotEnabled,
    });
  });

  it('lists users with their session state and groups', async () => {
    const user = await givenUser(t.ctx, { userName: 'listed' });
    await givenUserSession(t, user);
    const list = (
      (await admin.get('/api/admin/users')).body as {
        data: { UserName: string; ActiveSession: boolean }[];
      }
    ).data;
    expect(list).toContainEqual(expect.objectContaining({ UserName: 'listed', ActiveSession: true }));
    expect((await admin.get(`/api/admin/users/${user.id}/groups`)).body).toEqual({ data: [] });
  });

  it.each([
    ['GET', '/api/admin/users'],
    ['POST', '/api/admin/users'],
    ['GET', '/api/admin/users/x'],
    ['PUT', '/api/admin/users/x'],
    ['DELETE', '/api/admin/users/x'],
    ['DELETE', '/api/admin/users/x/totpToken'],
    ['GET', '/api/admin/users/x/sessions'],
    ['GET', '/api/admin/users/x/groups'],
    ['GET', '/api/admin/users/x/acls'],
  ] as const)('refuses %s %s without an admin session', async (method, url) => {
    const response = await t.app.inject({ method, url, payload: {} });
    expect(response.statusCode).toBe(401);
  });
});
