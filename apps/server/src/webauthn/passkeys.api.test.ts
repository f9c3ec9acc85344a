import { describe, expect, it } from 'vitest';
import { AuditActions, ErrorCodes, PasskeyListResponse } from '@postern/protocol';
import { useTestApp } from '../test-support/use-test-app.js';
import { bothStores } from '../test-support/store-kinds.js';
import { givenAdmin, givenUser } from '../test-support/factories.js';
import { givenAdminSession, givenUserSession } from '../test-support/sessions.js';
import { adminClient } from '../test-support/admin-client.js';
import { PasskeyClient } from '../test-support/passkeys.js';
import { recentAudit } from '../audit/audit.js';
import { writeSetting } from '../settings/settings.js';

/** The main paths of passkeys, on both stores: add, second factor, passwordless, manage, reset. */
describe.each(bothStores())('passkeys (%s)', (kind) => {
  const t = useTestApp(kind);

  const lastAudit = async () => (await recentAudit(t.ctx.db, 1))[0]?.Entry;

  it('adds a passkey to a recently signed-in user, lists it and audits it', async () => {
    const user = await givenUser(t.ctx);
    const cookie = await givenUserSession(t, user);
    const client = new PasskeyClient(t, 'user');

    const response = await client.register(cookie, { name: 'Work laptop', backedUp: true });
    expect(response.statusCode).toBe(200);
    const added = response.json<{ data: { Outcome: string; Passkey: { ID: string } } }>().data;
    expect(added).toEqual({
      Outcome: 'Added',
      Passkey: {
        ID: expect.any(String) as string,
        Name: 'Work laptop',
        CreatedAt: new Date(t.clock.now()).toISOString(),
        LastUsedAt: null,
        BackedUp: true,
        Discoverable: true,
      },
    });
    // Adding to a signed-in session leaves its cookie alone.
    expect(client.cookieOf(response)).toBeUndefined();
    expect(await lastAudit()).toEqual({
      [AuditActions.PasskeyAdded]: { UserName: user.userName, IpAddress: '127.0.0.1', Description: 'Work laptop' },
    });
    const listed = await client.call('GET', '/credentials', cookie);
    expect(listed.json()).toEqual({ data: [added.Passkey] });
  });

  it('passes a pending sign-in’s second factor with a passkey: a new full session, the pending one ended', async () => {
    const user = await givenUser(t.ctx, { totpEnabled: true });
    const client = new PasskeyClient(t, 'user');
    await client.givenPasskey(await givenUserSession(t, user), 'Phone');
    const pending = await givenUserSession(t, user, { stage: 'totp' });
    expect((await t.app.inject({ url: '/api/status', headers: { cookie: pending } })).statusCode).toBe(401);

    const verified = await client.secondFactor(pending);
    expect(verified.statusCode).toBe(200);
    expect(verified.json()).toEqual({ data: { Outcome: 'SignedIn' } });
    const full = client.cookieOf(verified);
    expect(full).toBeDefined();
    expect(full).not.toBe(pending);
    expect((await t.app.inject({ url: '/api/status', headers: { cookie: full ?? '' } })).statusCode).toBe(200);
    expect((await client.call('POST', '/authentication/options', pending)).statusCode).toBe(401);
    expect(await lastAudit()).toEqual({
      [AuditActions.UserLogin]: { UserName: user.userName, IpAddress: '127.0.0.1', Description: 'passkey "Phone"' },
    });
  });

  it('signs a user in with a passkey alone, into a full session, and records its use', async () => {
    const user = await givenUser(t.ctx, { totpEnabled: true });
    const client = new PasskeyClient(t, 'user');
    const { id } = await client.givenPasskey(await givenUserSession(t, user));
    t.clock.advance(60_000);

    const response = await client.passwordless();
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ data: { UserName: user.userName, KioskMode: false } });
    const cookie = client.cookieOf(response) ?? '';
    // Full: the portal API opens, no second factor is asked (the passkey verified the person).
    expect((await t.app.inject({ url: '/api/status', headers: { cookie } })).statusCode).toBe(200);
    const [passkey] = (await client.call('GET', '/credentials', cookie)).json<{
      data: { ID: string; LastUsedAt: string }[];
    }>().data;
    expect(passkey).toMatchObject({ ID: id, LastUsedAt: new Date(t.clock.now()).toISOString() });
  });

  it('signs an admin in with a passkey alone once AdminPasskeySignIn is on, and not before', async () => {
    const admin = await givenAdmin(t.ctx, { totpEnabled: true });
    const client = new PasskeyClient(t, 'admin');
    await client.givenPasskey(await givenAdminSession(t, admin));

    const off = await client.passwordlessOptions();
    expect(off.statusCode).toBe(403);
    expect(off.json()).toEqual({ Err: ErrorCodes.passkeySignInDisabled });

    await writeSetting(t.ctx.db, 'AdminPasskeySignIn', true, t.clock.now());
    const response = await client.passwordless();
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ data: { UserName: admin.userName, HasPasskeys: true } });
    const cookie = client.cookieOf(response) ?? '';
    expect((await t.app.inject({ url: '/api/admin/status', headers: { cookie } })).statusCode).toBe(200);
  });

  it('renames and removes a passkey, each audited; a removed one signs nobody in', async () => {
    const user = await givenUser(t.ctx);
    const cookie = await givenUserSession(t, user);
    const client = new PasskeyClient(t, 'user');
    const { id } = await client.givenPasskey(cookie, 'Old name');

    const renamed = await client.call('PUT', `/credentials/${id}`, cookie, { Name: 'New name' });
    expect(renamed.json()).toMatchObject({ data: { ID: id, Name: 'New name' } });
    expect(await lastAudit()).toEqual({
      [AuditActions.PasskeyRenamed]: {
        UserName: user.userName,
        IpAddress: '127.0.0.1',
        Description: 'Old name → New name',
      },
    });

    expect((await client.call('DELETE', `/credentials/${id}`, cookie)).json()).toEqual({ data: null });
    expect(await lastAudit()).toEqual({
      [AuditActions.PasskeyRemoved]: { UserName: user.userName, IpAddress: '127.0.0.1', Description: 'New name' },
    });
    expect((await client.call('GET', '/credentials', cookie)).json()).toEqual({ data: [] });
    const refused = await client.passwordless();
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toEqual({ Err: ErrorCodes.passkeyVerificationFailed });
  });

  it('lets an administrator list and remove a user’s passkeys, audited', async () => {
    const user = await givenUser(t.ctx);
    const client = new PasskeyClient(t, 'user');
    await client.givenPasskey(await givenUserSession(t, user), 'One');
    await client.givenPasskey(await givenUserSession(t, user), 'Two');
    const admin = await givenAdmin(t.ctx);
    const console = adminClient(t.app, await givenAdminSession(t, admin));

    const listed = await console.data('GET', `/api/admin/users/${user.id}/passkeys`, PasskeyListResponse);
    expect(listed.map((passkey) => passkey.Name)).toEqual(['One', 'Two']);
    expect((await console.delete(`/api/admin/users/${user.id}/passkeys`)).status).toBe(200);
    expect(await console.data('GET', `/api/admin/users/${user.id}/passkeys`, PasskeyListResponse)).toEqual([]);
    expect(await lastAudit()).toEqual({
      [AuditActions.UserPasskeysReset]: {
        AdminName: admin.userName,
        UserName: user.userName,
        Description: '2 passkey(s)',
      },
    });
    expect((await client.passwordless()).statusCode).toBe(401);
  });
});
