import { describe, expect, it } from 'vitest';
import { ErrorCodes, type V1UserSession } from '@postern/protocol';
import { useTestApp } from '../test-support/use-test-app.js';
import { givenUser } from '../test-support/factories.js';
import { basicAuth, givenAllowlistKnoc, givenApiKey, givenGrantRow, givenSessionRow } from '../test-support/v1-rows.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const MONITOR = '198.51.100.4';

describe('GET /api/v1/user_sessions (sqlite)', () => {
  const t = useTestApp('sqlite');

  const fetchSessions = (authorization?: string, from = MONITOR) =>
    t.app.inject({
      method: 'GET',
      url: '/api/v1/user_sessions',
      remoteAddress: from,
      headers: authorization === undefined ? {} : { authorization },
    });
  const sessionsKey = (options: Parameters<typeof givenApiKey>[2] = {}) =>
    givenApiKey(t.ctx, ['user.sessions'], options);

  it('lists running sessions, oldest first, with their running grants', async () => {
    const alice = await givenUser(t.ctx, { name: 'Alice Example', userName: 'alice' });
    const bob = await givenUser(t.ctx, { name: 'Bob Example', userName: 'bob' });
    const vpn = await givenAllowlistKnoc(t.ctx, { description: 'VPN' });
    const db = await givenAllowlistKnoc(t.ctx, { description: 'Database' });
    const aliceSession = await givenSessionRow(t.ctx, alice.id, { ipAddress: '192.0.2.10' });
    t.clock.advance(MINUTE);
    const bobSession = await givenSessionRow(t.ctx, bob.id, {
      ipAddress: '2001:db8::5',
      kiosk: true,
      endsAt: t.clock.now() + HOUR,
    });
    const expiresAt = t.clock.now() + 30 * MINUTE;
    await givenGrantRow(t.ctx, vpn.id, '192.0.2.10', { sessionId: aliceSession, expiresAt });
    await givenGrantRow(t.ctx, db.id, '192.0.2.10', { sessionId: aliceSession, expiresAt });
    await givenGrantRow(t.ctx, vpn.id, '192.0.2.99', { sessionId: aliceSession, endedAt: t.clock.now() });
    await givenGrantRow(t.ctx, vpn.id, '192.0.2.98', { sessionId: aliceSession, expiresAt: t.clock.now() + MINUTE });
    // An admin's break-glass grant belongs to no session.
    await givenGrantRow(t.ctx, vpn.id, '203.0.113.1', { sessionId: null, origin: 'admin' });
    t.clock.advance(MINUTE);
    const key = await sessionsKey();

    const response = await fetchSessions(basicAuth('apiuser', key.plaintext));

    expect(response.statusCode, response.body).toBe(200);
    const start = t.clock.now() - 2 * MINUTE;
    expect(response.json()).toEqual({
      data: [
        {
          ID: aliceSession,
          UserName: 'alice',
          Name: 'Alice Example',
          IpAddress: '192.0.2.10',
          Created: new Date(start).toISOString(),
          Ends: new Date(start + 8 * HOUR).toISOString(),
          KioskMode: false,
          Grants: [
            { ACLID: db.id, Description: 'Database', IP: '192.0.2.10', ExpiresAt: new Date(expiresAt).toISOString() },
            { ACLID: vpn.id, Description: 'VPN', IP: '192.0.2.10', ExpiresAt: new Date(expiresAt).toISOString() },
          ],
        },
        {
          ID: bobSession,
          UserName: 'bob',
          Name: 'Bob Example',
          IpAddress: '2001:db8::5',
          Created: new Date(start + MINUTE).toISOString(),
          Ends: new Date(start + MINUTE + HOUR).toISOString(),
          KioskMode: true,
          Grants: [],
        },
      ] satisfies V1UserSession[],
    });
  });

  it('leaves out ended, expired and half-signed-in sessions', async () => {
    const user = await givenUser(t.ctx);
    await givenSessionRow(t.ctx, user.id, { endedAt: t.clock.now() });
    await givenSessionRow(t.ctx, user.id, { endsAt: t.clock.now() + MINUTE });
    await givenSessionRow(t.ctx, user.id, { stage: 'totp' });
    await givenSessionRow(t.ctx, user.id, { stage: 'totp-enrol' });
    const running = await givenSessionRow(t.ctx, user.id);
    t.clock.advance(MINUTE);
    const key = await sessionsKey();

    const response = await fetchSessions(`Bearer ${key.plaintext}`);

    expect(response.json<{ data: V1UserSession[] }>().data.map((session) => session.ID)).toEqual([running]);
  });

  it('records the key’s use and writes no audit entry', async () => {
    const key = await sessionsKey();
    t.clock.advance(MINUTE);
    const auditBefore = await t.ctx.db.selectFrom('auditLog').select('id').execute();

    expect((await fetchSessions(basicAuth('apiuser', key.plaintext))).statusCode).toBe(200);

    const row = await t.ctx.db.selectFrom('apiKeys').select('lastUsedAt').where('id', '=', key.id).executeTakeFirst();
    expect(row?.lastUsedAt).toBe(t.clock.now());
    expect(await t.ctx.db.selectFrom('auditLog').select('id').execute()).toHaveLength(auditBefore.length);
  });

  describe('refusals', () => {
    it.each([
      ['no credentials', () => Promise.resolve(undefined)],
      ['a wrong key', async () => basicAuth('apiuser', `${(await sessionsKey()).plaintext.slice(0, -2)}xx`)],
      ['a wrong user name', async () => basicAuth('root', (await sessionsKey()).plaintext)],
      ['a key without the scope', async () => `Bearer ${(await givenApiKey(t.ctx, ['agent.register'])).plaintext}`],
      [
        'an expired key',
        async () => {
          const key = await sessionsKey({ expiresAt: t.clock.now() + MINUTE });
          t.clock.advance(MINUTE);
          return `Bearer ${key.plaintext}`;
        },
      ],
    ])('answers %s with 401 and the Basic challenge', async (_case, authorization) => {
      const response = await fetchSessions(await authorization());
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ Err: ErrorCodes.unauthorised });
      expect(response.headers['www-authenticate']).toBe('Basic realm="postern-api"');
    });

    it('answers a good key used from outside its AllowedFrom with 403', async () => {
      const key = await sessionsKey({ allowedFrom: [{ Prefix: '10.0.0.0/8', Note: 'monitoring' }] });
      const outside = await fetchSessions(`Bearer ${key.plaintext}`);
      expect(outside.statusCode).toBe(403);
      expect(outside.json()).toEqual({ Err: ErrorCodes.apiKeyAddressNotAllowed });
      expect((await fetchSessions(`Bearer ${key.plaintext}`, '10.9.8.7')).statusCode).toBe(200);
    });

    it('throttles an address after 20 failed keys', async () => {
      const key = await sessionsKey();
      for (let i = 0; i < 20; i += 1) await fetchSessions(basicAuth('apiuser', 'pst_nope'));
      const blocked = await fetchSessions(`Bearer ${key.plaintext}`);
      expect(blocked.statusCode).toBe(429);
      expect(blocked.headers['retry-after']).toBe(String(15 * 60));
    });
  });
});
