import { Writable } from 'node:stream';
import pino from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import { AuditActions, ErrorCodes } from '@postern/protocol';
import { useTestApp } from '../test-support/use-test-app.js';
import { givenUser, PASSWORD_TEST_TIMEOUT_MS } from '../test-support/factories.js';
import { recentAudit } from '../audit/audit.js';
import { FORWARDED_FOR_REFUSAL } from './forwarded-for-rule.js';

/** The proxy in front of the app (inject's default peer is 127.0.0.1) and a proxy behind it. */
const TRUSTED_PROXIES = ['127.0.0.0/8', '10.0.0.0/8'];

// The sign-ins that pass the rule verify a password hash.
describe('X-Forwarded-For from a trusted proxy (sqlite)', { timeout: PASSWORD_TEST_TIMEOUT_MS }, () => {
  const logLines: string[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logLines.push(chunk.toString());
      callback();
    },
  });
  const t = useTestApp('sqlite', {
    config: { trustedProxies: TRUSTED_PROXIES },
    logger: pino({ level: 'warn' }, logStream),
  });
  let user: Awaited<ReturnType<typeof givenUser>>;

  beforeEach(async () => {
    logLines.length = 0;
    user = await givenUser(t.ctx);
  });

  // Signing in is the subject: the address a sign-in stores in the session, the audit and the throttle.
  const signIn = (forwardedFor: string, remoteAddress = '127.0.0.1') =>
    t.app.inject({
      method: 'POST',
      url: '/api/login',
      remoteAddress,
      headers: { 'x-forwarded-for': forwardedFor },
      payload: { UserName: user.userName, Password: user.password },
    });
  const sessionAddresses = async () =>
    (await t.ctx.db.selectFrom('userSessions').select('ipAddress').execute()).map((row) => row.ipAddress);
  const auditedAddresses = async () =>
    (await recentAudit(t.ctx.db, 100)).map((entry) => Object.values(entry.Entry)[0]?.IpAddress);

  it.each([
    ['a word', 'not-an-ip'],
    ['markup', '<script>alert(1)</script>'],
    ['a network', '1.2.3.4/24'],
    ['a zone id', 'fe80::1%eth0'],
    ['an empty value', ''],
    ['only commas', ' , ,'],
    ['two values without a comma', '198.51.100.4 203.0.113.9'],
    ['a port out of range', '203.0.113.9:70000'],
    ['a bad entry right of a good one', '203.0.113.9, not-an-ip'],
  ])('malformed forwarded addresses are refused: %s (%j) gets 400 and nothing is stored', async (_case, value) => {
    const response = await signIn(value);

    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ Err: ErrorCodes.badRequest, Extra: FORWARDED_FOR_REFUSAL });
    expect(await sessionAddresses()).toEqual([]);
    expect(await recentAudit(t.ctx.db, 100)).toEqual([]);
    expect(await t.ctx.db.selectFrom('loginThrottle').selectAll().execute()).toEqual([]);
  });

  it.each([
    ['/api/status', 'GET'],
    ['/api/admin/users', 'GET'],
    ['/api/v1/user_sessions', 'GET'],
    ['/api/saml/metadata', 'GET'],
    ['/api/logout', 'POST'],
  ] as const)('refuses a malformed forwarded address on %s before the route’s own checks', async (url, method) => {
    const response = await t.app.inject({ method, url, headers: { 'x-forwarded-for': 'not-an-ip' } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ Err: ErrorCodes.badRequest, Extra: FORWARDED_FOR_REFUSAL });
  });

  it('logs the refusal at warn with the header cut short, and echoes none of it', async () => {
    const value = `<script>${'x'.repeat(1000)}`;
    const response = await signIn(value);

    expect(response.body).not.toContain('<script>');
    const refusals = logLines
      .map((line) => JSON.parse(line) as { level: number; msg: string; forwardedFor?: string })
      .filter((line) => line.forwardedFor !== undefined);
    expect(refusals).toEqual([
      expect.objectContaining({ level: 40, forwardedFor: value.slice(0, 200), peer: '127.0.0.1' }),
    ]);
  });

  it.each([
    ['IPv4 with a port', '203.0.113.9:8443', '203.0.113.9'],
    ['IPv6 in brackets with a port', '[2001:db8::1]:443', '2001:db8::1'],
  ])('stores the client of %s without the port in the session and the audit', async (_case, value, stored) => {
    const response = await signIn(value);

    expect(response.statusCode).toBe(200);
    expect(await sessionAddresses()).toEqual([stored]);
    const [login] = await recentAudit(t.ctx.db, 1);
    expect(login?.Entry[AuditActions.UserLogin]?.IpAddress).toBe(stored);
  });

  it('takes the right-most hop no trusted proxy added, whatever the client wrote before it', async () => {
    const response = await signIn('not-an-ip, 203.0.113.9:5000, 10.0.0.7');

    expect(response.statusCode).toBe(200);
    expect(await sessionAddresses()).toEqual(['203.0.113.9']);
    expect(await auditedAddresses()).toEqual(['203.0.113.9']);
  });

  it('ignores X-Forwarded-For entirely from a peer that is not a trusted proxy', async () => {
    const response = await signIn('not-an-ip', '192.0.2.50');

    expect(response.statusCode).toBe(200);
    expect(await sessionAddresses()).toEqual(['192.0.2.50']);
  });
});
