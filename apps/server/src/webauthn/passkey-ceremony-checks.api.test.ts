import { describe, expect, it } from 'vitest';
import { AuditActions, ErrorCodes, WEBAUTHN_CEREMONY_MS } from '@postern/protocol';
import { useTestApp } from '../test-support/use-test-app.js';
import { givenUser } from '../test-support/factories.js';
import { givenUserSession } from '../test-support/sessions.js';
import { PasskeyClient } from '../test-support/passkeys.js';
import { recentAudit } from '../audit/audit.js';
import { writeSetting } from '../settings/settings.js';
import { sweepOnce } from '../sessions/session-sweeper.js';

/** What each ceremony checks, with a soft authenticator spoiling one part of an answer at a time. */
describe('passkey ceremony checks (sqlite)', () => {
  const t = useTestApp('sqlite');

  const FAILED = { Err: ErrorCodes.passkeyVerificationFailed };

  async function userWithPasskey(overrides: { totpEnabled?: boolean } = {}) {
    const user = await givenUser(t.ctx, overrides);
    const client = new PasskeyClient(t, 'user');
    const passkey = await client.givenPasskey(await givenUserSession(t, user));
    return { user, client, passkey };
  }

  describe('registration', () => {
    it.each([
      ['another origin', { origin: 'https://attacker.example' }],
      ['another RP ID', { rpId: 'attacker.example' }],
      ['no user verification', { userVerified: false }],
      ['another challenge', { challenge: 'c29tZSBvdGhlciBjaGFsbGVuZ2U' }],
    ])('refuses a new credential made for %s, and stores nothing', async (_case, answer) => {
      const cookie = await givenUserSession(t);
      const client = new PasskeyClient(t, 'user');
      const response = await client.register(cookie, answer);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual(FAILED);
      expect((await client.call('GET', '/credentials', cookie)).json()).toEqual({ data: [] });
    });

    it('answers each challenge once: the same answer again is err.ceremonyExpired', async () => {
      const cookie = await givenUserSession(t);
      const client = new PasskeyClient(t, 'user');
      const options = await client.options('/registration/options', cookie);
      const answer = client.authenticator.register(options);
      expect((await client.verifyRegistration(cookie, answer)).statusCode).toBe(200);
      const again = await client.verifyRegistration(cookie, answer);
      expect(again.statusCode).toBe(400);
      expect(again.json()).toEqual({ Err: ErrorCodes.ceremonyExpired });
    });

    it('spends the challenge on a failed answer too: a good one after it is err.ceremonyExpired', async () => {
      const cookie = await givenUserSession(t);
      const client = new PasskeyClient(t, 'user');
      const options = await client.options('/registration/options', cookie);
      const spoiled = client.authenticator.register(options, { origin: 'https://attacker.example' });
      expect((await client.verifyRegistration(cookie, spoiled)).statusCode).toBe(401);
      const good = client.authenticator.register(options);
      expect((await client.verifyRegistration(cookie, good)).json()).toEqual({ Err: ErrorCodes.ceremonyExpired });
    });

    it('refuses an answer after WEBAUTHN_CEREMONY_MS, and the sweep forgets the ceremony', async () => {
      const cookie = await givenUserSession(t);
      const client = new PasskeyClient(t, 'user');
      const options = await client.options('/registration/options', cookie);
      t.clock.advance(WEBAUTHN_CEREMONY_MS);
      await sweepOnce(t.ctx);
      expect(await t.ctx.db.selectFrom('webauthnCeremonies').selectAll().execute()).toEqual([]);
      const late = await client.verifyRegistration(cookie, client.authenticator.register(options));
      expect(late.json()).toEqual({ Err: ErrorCodes.ceremonyExpired });
    });

    it('refuses a session’s answer to another session’s challenge', async () => {
      const user = await givenUser(t.ctx);
      const client = new PasskeyClient(t, 'user');
      const options = await client.options('/registration/options', await givenUserSession(t, user));
      const other = await givenUserSession(t, user);
      const answer = client.authenticator.register(options);
      expect((await client.verifyRegistration(other, answer)).json()).toEqual({ Err: ErrorCodes.ceremonyExpired });
    });

    it('refuses a credential the account holds already (err.passkeyAlreadyRegistered)', async () => {
      const { client, user } = await userWithPasskey();
      const cookie = await givenUserSession(t, user);
      const options = await client.options('/registration/options', cookie);
      const held = client.authenticator.credentials[0];
      // The browser is told which credentials to leave out; one that registers the same again is refused.
      expect(options.excludeCredentials).toEqual([{ id: held?.id, type: 'public-key', transports: ['internal'] }]);
      const response = await client.verifyRegistration(cookie, client.authenticator.register(options, { again: held }));
      expect(response.statusCode).toBe(409);
      expect(response.json()).toEqual({ Err: ErrorCodes.passkeyAlreadyRegistered });
    });
  });

  describe('sign-in', () => {
    it.each([
      ['another origin', { origin: 'https://attacker.example' }],
      ['another RP ID', { rpId: 'attacker.example' }],
      ['no user verification', { userVerified: false }],
      ['another challenge', { challenge: 'c29tZSBvdGhlciBjaGFsbGVuZ2U' }],
    ])('refuses an assertion for %s, audited as a failed sign-in', async (_case, answer) => {
      const { client, user } = await userWithPasskey();
      const response = await client.passwordless(answer);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual(FAILED);
      expect((await recentAudit(t.ctx.db, 1))[0]?.Entry).toEqual({
        [AuditActions.UserLoginFailed]: {
          UserName: user.userName,
          IpAddress: '127.0.0.1',
          Description: 'passkey sign-in refused',
        },
      });
    });

    it('refuses a replayed assertion: its ceremony is spent', async () => {
      const { client } = await userWithPasskey();
      const { CeremonyID, Options } = (await client.passwordlessOptions()).json<{
        data: { CeremonyID: string; Options: Record<string, unknown> };
      }>().data;
      const answer = { CeremonyID, Response: client.authenticator.assert(Options) };
      expect((await client.call('POST', '/passwordless/verify', undefined, answer)).statusCode).toBe(200);
      const replayed = await client.call('POST', '/passwordless/verify', undefined, answer);
      expect(replayed.statusCode).toBe(400);
      expect(replayed.json()).toEqual({ Err: ErrorCodes.ceremonyExpired });
    });

    it('refuses a signature counter that went back, audits it, and keeps the stored counter', async () => {
      const { client, user } = await userWithPasskey();
      expect((await client.passwordless({ counter: 5 })).statusCode).toBe(200);
      const cloned = await client.passwordless({ counter: 5 });
      expect(cloned.statusCode).toBe(401);
      expect(cloned.json()).toEqual({ Err: ErrorCodes.passkeyCounterRegressed });
      expect((await recentAudit(t.ctx.db, 1))[0]?.Entry).toEqual({
        [AuditActions.PasskeyCounterRegressed]: {
          UserName: user.userName,
          IpAddress: '127.0.0.1',
          Description: 'Test key: counter 5, stored 5',
        },
      });
      expect((await client.passwordless({ counter: 6 })).statusCode).toBe(200);
    });

    it('accepts an authenticator that never counts (0 each time)', async () => {
      const { client } = await userWithPasskey();
      expect((await client.passwordless({ counter: 0 })).statusCode).toBe(200);
      expect((await client.passwordless({ counter: 0 })).statusCode).toBe(200);
    });

    it('refuses a user handle that is not the passkey’s account, and an assertion without one', async () => {
      const { client } = await userWithPasskey();
      const other = await givenUser(t.ctx);
      const foreign = Buffer.from(other.id).toString('base64url');
      expect((await client.passwordless({ userHandle: foreign })).json()).toEqual(FAILED);
      expect((await client.passwordless({ userHandle: null })).json()).toEqual(FAILED);
    });

    it('refuses a passkey registered under another RP ID once PublicURL moves the portal', async () => {
      const { client } = await userWithPasskey();
      await writeSetting(t.ctx.db, 'PublicURL', 'https://access.example.org', t.clock.now());
      const options = (await client.passwordlessOptions()).json<{ data: { Options: { rpId: string } } }>().data.Options;
      expect(options.rpId).toBe('access.example.org');
      // The browser on the published origin answers for the new RP ID, with the old credential.
      const credential = client.authenticator.credentials[0];
      const response = await client.passwordless({ origin: 'https://access.example.org', credential });
      expect(response.json()).toEqual(FAILED);
    });

    it('refuses a user’s passkey on the admin sign-in (the realms hold their own)', async () => {
      const { client } = await userWithPasskey();
      await writeSetting(t.ctx.db, 'AdminPasskeySignIn', true, t.clock.now());
      const admin = new PasskeyClient(t, 'admin', client.authenticator);
      expect((await admin.passwordless()).json()).toEqual(FAILED);
    });

    it('refuses another account’s passkey as this sign-in’s second factor', async () => {
      const { client } = await userWithPasskey({ totpEnabled: true });
      const second = await userWithPasskey({ totpEnabled: true });
      const pending = await givenUserSession(t, second.user, { stage: 'totp' });
      const options = await client.options('/authentication/options', pending);
      const theirs = client.authenticator.assert(options, { credential: client.authenticator.credentials[0] });
      const response = await client.call('POST', '/authentication/verify', pending, { Response: theirs });
      expect(response.json()).toEqual(FAILED);
    });

    it('turns the user passwordless sign-in off with UserPasskeySignIn', async () => {
      const { client } = await userWithPasskey();
      const { CeremonyID, Options } = (await client.passwordlessOptions()).json<{
        data: { CeremonyID: string; Options: Record<string, unknown> };
      }>().data;
      await writeSetting(t.ctx.db, 'UserPasskeySignIn', false, t.clock.now());
      const answer = { CeremonyID, Response: client.authenticator.assert(Options) };
      const response = await client.call('POST', '/passwordless/verify', undefined, answer);
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual({ Err: ErrorCodes.passkeySignInDisabled });
    });

    it('answers garbage with 4xx, never 500', async () => {
      const { client } = await userWithPasskey();
      const { CeremonyID } = (await client.passwordlessOptions()).json<{ data: { CeremonyID: string } }>().data;
      const garbage = {
        id: client.authenticator.credentials[0]?.id,
        rawId: client.authenticator.credentials[0]?.id,
        type: 'public-key',
        response: { clientDataJSON: 'AAAA', authenticatorData: 'AAAA', signature: 'AAAA', userHandle: 'AAAA' },
      };
      const response = await client.call('POST', '/passwordless/verify', undefined, { CeremonyID, Response: garbage });
      expect(response.statusCode).toBe(401);
      const unknown = await client.call('POST', '/passwordless/verify', undefined, {
        CeremonyID: 'x',
        Response: garbage,
      });
      expect(unknown.json()).toEqual({ Err: ErrorCodes.ceremonyExpired });
    });
  });
});
