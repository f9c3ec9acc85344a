import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditActions, ErrorCodes } from '@postern/protocol';
import { createTestApp, testStoreKinds, type TestApp } from '../test-support/test-app.js';
import { givenUser } from '../test-support/factories.js';
import { signInUser } from '../test-support/http.js';
import { recentAudit } from '../audit/audit.js';
import { startUserSession } from './session-issue.js';

describe.each(testStoreKinds())('password change (%s)', (kind) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp(kind);
  });
  afterEach(async () => {
    await t.close();
  });

  const change = (cookie: string | undefined, body: object) =>
    t.app.inject({
      method: 'PUT',
      url: '/api/password',
      headers: cookie === undefined ? {} : { cookie },
      payload: body,
    });
  const status = (cookie: string) => t.app.inject({ method: 'GET', url: '/api/status', headers: { cookie } });

  it('changes the password, keeps this session and ends the others', async () => {
    const user = await givenUser(t.ctx, { userName: 'changer' });
    const here = await signInUser(t.app, 'changer', user.password);
    const elsewhere = await signInUser(t.app, 'changer', user.password);
    const response = await change(here, { ExistingPassword: user.password, NewPassword: 'a brand new one' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ data: null });
    expect((await status(here)).statusCode).toBe(200);
    expect((await status(elsewhere)).statusCode).toBe(401);
    await signInUser(t.app, 'changer', 'a brand new one');
    const actions = (await recentAudit(t.ctx.db, 5)).map((entry) => Object.keys(entry.Entry)[0]);
    expect(actions).toContain(AuditActions.PasswordChanged);
  });

  it.each([
    [
      'a wrong current password',
      { ExistingPassword: 'not it', NewPassword: 'a brand new one' },
      { Err: ErrorCodes.invalidCredentials, Extra: 'ExistingPassword' },
    ],
    [
      'a short new password',
      { ExistingPassword: 'x', NewPassword: 'short' },
      { Err: ErrorCodes.passwordLength, Extra: 'NewPassword' },
    ],
    [
      'a long new password',
      { ExistingPassword: 'x', NewPassword: 'y'.repeat(65) },
      { Err: ErrorCodes.passwordLength, Extra: 'NewPassword' },
    ],
  ])('refuses %s', async (_name, body, expected) => {
    const user = await givenUser(t.ctx);
    const cookie = await signInUser(t.app, user.userName, user.password);
    const response = await change(cookie, body);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(expected);
  });

  it('is for local accounts only', async () => {
    const user = await givenUser(t.ctx, { authType: 'LDAP', ldapDn: 'uid=x', passwordHash: null });
    // An LDAP user cannot sign in here without a directory; give them a session directly.
    const issued = await t.ctx.db.transaction().execute((trx) =>
      startUserSession(trx, {
        user: { ...user, totpSecret: null, totpPendingSecret: null, totpLastStep: null, lastLogin: null },
        kiosk: false,
        sessionLimit: null,
        meta: { ipAddress: '127.0.0.1', userAgent: 'test' },
        now: t.clock.now(),
        previousToken: undefined,
      }),
    );
    const response = await change(`__Host-postern_session=${issued.token}`, {
      ExistingPassword: 'x',
      NewPassword: 'a new password',
    });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ Err: ErrorCodes.passwordChangeNotAllowed });
  });

  it('answers a stranger with 401 before looking at the body', async () => {
    const response = await change(undefined, { nonsense: true });
    expect(response.statusCode).toBe(401);
  });

  it('counts wrong current passwords towards the account lock', async () => {
    const user = await givenUser(t.ctx);
    const cookie = await signInUser(t.app, user.userName, user.password);
    for (let i = 0; i < 5; i += 1)
      await change(cookie, { ExistingPassword: `wrong ${i}`, NewPassword: 'a brand new one' });
    const locked = await change(cookie, { ExistingPassword: user.password, NewPassword: 'a brand new one' });
    expect(locked.statusCode).toBe(429);
  });
});
