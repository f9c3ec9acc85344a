import { describe, expect, it } from 'vitest';
import { AuditActions, ErrorCodes } from '@postern/protocol';
import { useTestApp } from '../test-support/use-test-app.js';
import { givenUser, PASSWORD_TEST_TIMEOUT_MS } from '../test-support/factories.js';
import { signInUser } from '../test-support/http.js';
import { givenUserSession } from '../test-support/sessions.js';
import { recentAudit } from '../audit/audit.js';

// Changing a password verifies the current one and hashes the new one (argon2id).
describe('password change (sqlite)', { timeout: PASSWORD_TEST_TIMEOUT_MS }, () => {
  const t = useTestApp('sqlite');

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
    const here = await givenUserSession(t, user);
    const elsewhere = await givenUserSession(t, user);
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
    const cookie = await givenUserSession(t);
    const response = await change(cookie, body);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(expected);
  });

  it('is for local accounts only', async () => {
    const user = await givenUser(t.ctx, { authType: 'LDAP', ldapDn: 'uid=x', passwordHash: null });
    // An LDAP user cannot sign in here without a directory; give them a session directly.
    const response = await change(await givenUserSession(t, user), {
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
    const cookie = await givenUserSession(t, user);
    for (let i = 0; i < 5; i += 1)
      await change(cookie, { ExistingPassword: `wrong ${i}`, NewPassword: 'a brand new one' });
    const locked = await change(cookie, { ExistingPassword: user.password, NewPassword: 'a brand new one' });
    expect(locked.statusCode).toBe(429);
  });
});
