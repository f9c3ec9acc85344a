import { describe, expect, it } from 'vitest';
import { AuditActions, ErrorCodes, MAX_PASSKEYS_PER_ACCOUNT, PASSKEY_CHANGE_WINDOW_MINUTES } from '@postern/protocol';
import { useTestApp } from '../test-support/use-test-app.js';
import { givenAdmin, givenUser } from '../test-support/factories.js';
import { givenAdminSession, givenUserSession } from '../test-support/sessions.js';
import { adminClient } from '../test-support/admin-client.js';
import { PasskeyClient } from '../test-support/passkeys.js';
import { recentAudit } from '../audit/audit.js';
import { writeSetting } from '../settings/settings.js';
import { insertPasskey } from './passkeys.repo.js';
import { uuidv7 } from '../lib/ids.js';

const MINUTE_MS = 60_000;

/** Who may hold, change and reset passkeys, and which accounts a passkey signs in. */
describe('passkey management (sqlite)', () => {
  const t = useTestApp('sqlite');

  it('changes passkeys only within PASSKEY_CHANGE_WINDOW_MINUTES of the sign-in; renaming any time', async () => {
    const user = await givenUser(t.ctx);
    const cookie = await givenUserSession(t, user);
    const client = new PasskeyClient(t, 'user');
    const { id } = await client.givenPasskey(cookie);

    t.clock.advance(PASSKEY_CHANGE_WINDOW_MINUTES * MINUTE_MS + 1);
    for (const refused of [
      await client.call('POST', '/registration/options', cookie),
      await client.call('DELETE', `/credentials/${id}`, cookie),
    ]) {
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toEqual({ Err: ErrorCodes.recentSignInRequired });
    }
    expect((await client.call('PUT', `/credentials/${id}`, cookie, { Name: 'Renamed' })).statusCode).toBe(200);
    // A new sign-in opens the window again.
    const fresh = await givenUserSession(t, user);
    expect((await client.call('DELETE', `/credentials/${id}`, fresh)).statusCode).toBe(200);
  });

  it(`holds at most MAX_PASSKEYS_PER_ACCOUNT (${MAX_PASSKEYS_PER_ACCOUNT}) passkeys per account`, async () => {
    const user = await givenUser(t.ctx);
    const now = t.clock.now();
    for (let index = 0; index < MAX_PASSKEYS_PER_ACCOUNT; index += 1) {
      await insertPasskey(t.ctx.db, {
        id: uuidv7(now),
        realm: 'user',
        accountId: user.id,
        credentialId: `credential-${index}`,
        publicKey: new Uint8Array(8),
        counter: 0,
        transports: [],
        name: `Key ${index}`,
        rpId: 'localhost',
        backedUp: false,
        discoverable: true,
        createdAt: now,
        lastUsedAt: null,
      });
    }
    const response = await new PasskeyClient(t, 'user').call(
      'POST',
      '/registration/options',
      await givenUserSession(t, user),
    );
    expect(response.statusCode).toBe(409);
    expect(response.json()).toEqual({ Err: ErrorCodes.passkeyLimitReached });
  });

  it.each(['SAML', 'oidc', 'apikey'] as const)('keeps passkeys from %s accounts', async (authType) => {
    const user = await givenUser(t.ctx, { authType, passwordHash: null });
    const cookie = await givenUserSession(t, user);
    const client = new PasskeyClient(t, 'user');
    for (const response of [
      await client.call('POST', '/registration/options', cookie),
      await client.call('GET', '/credentials', cookie),
    ]) {
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual({ Err: ErrorCodes.passkeysNotForThisAccount });
    }
  });

  it('lets an LDAP account hold a passkey as its second factor, never to sign in without the directory', async () => {
    const user = await givenUser(t.ctx, { authType: 'LDAP', passwordHash: null, ldapDn: 'uid=ann,dc=example,dc=org' });
    const client = new PasskeyClient(t, 'user');
    expect((await client.register(await givenUserSession(t, user))).statusCode).toBe(200);
    const passwordless = await client.passwordless();
    expect(passwordless.statusCode).toBe(403);
    expect(passwordless.json()).toEqual({ Err: ErrorCodes.passkeyOnlySecondFactor });
    expect(client.cookieOf(passwordless)).toBeUndefined();
  });

  it('answers another account’s passkey ID with err.passkeyNotFound', async () => {
    const client = new PasskeyClient(t, 'user');
    const { id } = await client.givenPasskey(await givenUserSession(t));
    const stranger = await givenUserSession(t);
    for (const response of [
      await client.call('PUT', `/credentials/${id}`, stranger, { Name: 'Mine now' }),
      await client.call('DELETE', `/credentials/${id}`, stranger),
    ]) {
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ Err: ErrorCodes.passkeyNotFound });
    }
  });

  it('signs no disabled or expired user in with a passkey, and says so only after the passkey verified', async () => {
    const user = await givenUser(t.ctx);
    const client = new PasskeyClient(t, 'user');
    await client.givenPasskey(await givenUserSession(t, user));
    await t.ctx.db.updateTable('users').set({ disabled: true }).where('id', '=', user.id).execute();
    const disabled = await client.passwordless();
    expect(disabled.statusCode).toBe(403);
    expect(disabled.json()).toEqual({ Err: ErrorCodes.accountDisabled });
    await t.ctx.db
      .updateTable('users')
      .set({ disabled: false, validUntil: t.clock.now() })
      .where('id', '=', user.id)
      .execute();
    expect((await client.passwordless()).json()).toEqual({ Err: ErrorCodes.accountDisabled });
    // A spoiled assertion is refused as such, whatever the account's state.
    expect((await client.passwordless({ userVerified: false })).json()).toEqual({
      Err: ErrorCodes.passkeyVerificationFailed,
    });
  });

  it('signs a user in as a kiosk when asked: the kiosk session and its browser-long cookie', async () => {
    const user = await givenUser(t.ctx);
    const client = new PasskeyClient(t, 'user');
    await client.givenPasskey(await givenUserSession(t, user));
    const response = await client.passwordless({ kiosk: true });
    expect(response.json()).toMatchObject({ data: { KioskMode: true } });
    expect(String(response.headers['set-cookie'])).not.toMatch(/Expires=/);
  });

  it('signs no admin in whose login is off', async () => {
    await writeSetting(t.ctx.db, 'AdminPasskeySignIn', true, t.clock.now());
    const admin = await givenAdmin(t.ctx);
    const client = new PasskeyClient(t, 'admin');
    await client.givenPasskey(await givenAdminSession(t, admin));
    await t.ctx.db.updateTable('admins').set({ loginEnabled: false }).where('id', '=', admin.id).execute();
    const response = await client.passwordless();
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ Err: ErrorCodes.loginNotPermitted });
  });

  it('lets an administrator reset another admin’s passkeys, audited, but not their own', async () => {
    const actor = await givenAdmin(t.ctx);
    const console = adminClient(t.app, await givenAdminSession(t, actor));
    const other = await givenAdmin(t.ctx);
    const client = new PasskeyClient(t, 'admin');
    await client.givenPasskey(await givenAdminSession(t, other));
    await client.givenPasskey(await givenAdminSession(t, actor));

    expect((await console.get(`/api/admin/admins/${other.id}/passkeys`)).body).toMatchObject({
      data: [{ Name: 'Test key' }],
    });
    expect((await console.delete(`/api/admin/admins/${other.id}/passkeys`)).status).toBe(200);
    expect((await recentAudit(t.ctx.db, 1))[0]?.Entry).toEqual({
      [AuditActions.AdminPasskeysReset]: { AdminName: actor.userName, Description: other.userName },
    });
    expect((await console.get(`/api/admin/admins/${other.id}/passkeys`)).body).toEqual({ data: [] });
    const own = await console.delete(`/api/admin/admins/${actor.id}/passkeys`);
    expect(own.status).toBe(400);
    expect(own.body).toEqual({ Err: ErrorCodes.cannotResetOwn2fa });
    expect((await console.get(`/api/admin/users/${uuidv7()}/passkeys`)).status).toBe(404);
  });

  it('deletes a user’s passkeys with the user', async () => {
    const user = await givenUser(t.ctx);
    await new PasskeyClient(t, 'user').givenPasskey(await givenUserSession(t, user));
    const console = adminClient(t.app, await givenAdminSession(t));
    expect((await console.delete(`/api/admin/users/${user.id}`)).status).toBe(200);
    expect(await t.ctx.db.selectFrom('passkeys').selectAll().execute()).toEqual([]);
  });
});
