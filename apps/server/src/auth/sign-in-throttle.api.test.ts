import { describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { AuditActions, ErrorCodes } from '@postern/protocol';
import { useTestApp } from '../test-support/use-test-app.js';
import { bothStores } from '../test-support/store-kinds.js';
import { givenAdmin, givenUser, PASSWORD_TEST_TIMEOUT_MS } from '../test-support/factories.js';
import { recentAudit } from '../audit/audit.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const STRANGER = '198.51.100.7';
const OWNER = '203.0.113.50';
/** The nth of many attacking addresses, each used for one failure only. */
const botnet = (n: number) => `10.${Math.floor(n / 250)}.${n % 250}.1`;

// On both stores: the throttles' counters live in the store (store-kinds.ts, 'throttling'). Every
// sign-in here verifies a password (argon2id), up to a hundred and more in a test.
describe.each(bothStores())('brute-force protection at sign-in (%s)', { timeout: PASSWORD_TEST_TIMEOUT_MS }, (kind) => {
  const t = useTestApp(kind);

  const login = (url: string, UserName: string, Password: string, ip: string) =>
    t.app.inject({ method: 'POST', url, payload: { UserName, Password }, remoteAddress: ip });
  const expectThrottled = (response: LightMyRequestResponse, seconds: number) => {
    expect(response.statusCode).toBe(429);
    expect(response.headers['retry-after']).toBe(String(seconds));
    expect(response.json()).toEqual({ Err: ErrorCodes.tooManyRequests, Extra: `${seconds}s` });
  };
  const auditedActions = async () => (await recentAudit(t.ctx.db, 1000)).map((entry) => Object.keys(entry.Entry)[0]);

  it.each([
    ['user', '/api/login'],
    ['admin', '/api/admin/login'],
  ] as const)(
    'blocks a %s account from the address that failed five times, even for the right password, but not the owner elsewhere',
    async (realm, url) => {
      const account = realm === 'user' ? await givenUser(t.ctx) : await givenAdmin(t.ctx);
      for (let i = 0; i < 5; i += 1) {
        expect((await login(url, account.userName, `wrong ${i}`, STRANGER)).statusCode).toBe(401);
      }
      expectThrottled(await login(url, account.userName, account.password, STRANGER), 900);
      expectThrottled(await login(url, account.userName, 'wrong again', STRANGER), 900);

      expect((await login(url, account.userName, account.password, OWNER)).statusCode).toBe(200);

      t.clock.advance(15 * MINUTE);
      expect((await login(url, account.userName, account.password, STRANGER)).statusCode).toBe(200);

      const { body } = await t.ctx.metrics.scrape();
      expect(body).toContain('postern_auth_attempts_total{method="local",result="failure"} 5\n');
      expect(body).toContain('postern_auth_attempts_total{method="local",result="banned"} 2\n');
      expect(body).toContain('postern_auth_attempts_total{method="local",result="success"} 2\n');
    },
  );

  it('blocks names that do not exist just like real ones, so blocks reveal nothing', async () => {
    for (let i = 0; i < 5; i += 1) await login('/api/login', 'ghost', 'guess', STRANGER);
    expectThrottled(await login('/api/login', 'ghost', 'guess', STRANGER), 900);
  });

  it('stops one address spraying many accounts', async () => {
    for (let i = 0; i < 20; i += 1) await login('/api/login', `victim${i}`, 'Winter2026!', STRANGER);
    const user = await givenUser(t.ctx);
    expectThrottled(await login('/api/login', user.userName, user.password, STRANGER), 900);
    expect((await login('/api/login', user.userName, user.password, OWNER)).statusCode).toBe(200);
  });

  it('counts the addresses of one IPv6 /64 together', async () => {
    const user = await givenUser(t.ctx);
    for (let i = 1; i <= 5; i += 1) await login('/api/login', user.userName, 'wrong', `2001:db8:1:2::${i}`);
    expectThrottled(await login('/api/login', user.userName, user.password, '2001:db8:1:2:ffff::9'), 900);
    expect((await login('/api/login', user.userName, user.password, '2001:db8:1:3::1')).statusCode).toBe(200);
  });

  it('gives an administrator’s name one budget on the user form and the admin form together', async () => {
    const admin = await givenAdmin(t.ctx, { userName: 'postern-admin' });
    for (let i = 0; i < 3; i += 1) await login('/api/login', 'postern-admin', 'guess', STRANGER);
    for (let i = 0; i < 2; i += 1) await login('/api/admin/login', 'POSTERN-ADMIN', 'guess', STRANGER);
    expectThrottled(await login('/api/admin/login', 'postern-admin', admin.password, STRANGER), 900);
    expectThrottled(await login('/api/login', 'postern-admin', admin.password, STRANGER), 900);
  });

  it('forgets the failures of an account from an address once it signs in there', async () => {
    const user = await givenUser(t.ctx);
    for (let i = 0; i < 4; i += 1) await login('/api/login', user.userName, 'wrong', OWNER);
    expect((await login('/api/login', user.userName, user.password, OWNER)).statusCode).toBe(200);
    for (let i = 0; i < 4; i += 1) {
      expect((await login('/api/login', user.userName, 'wrong', OWNER)).statusCode).toBe(401);
    }
    expect((await login('/api/login', user.userName, user.password, OWNER)).statusCode).toBe(200);
  });

  it('slows an account failing from many addresses for a minute at a time, the owner too, and audits it once', async () => {
    const user = await givenUser(t.ctx);
    for (let i = 0; i < 40; i += 1) {
      expect((await login('/api/login', user.userName, 'guess', botnet(i))).statusCode).toBe(401);
    }
    expectThrottled(await login('/api/login', user.userName, user.password, botnet(40)), 60);
    expectThrottled(await login('/api/login', user.userName, user.password, OWNER), 60);

    t.clock.advance(MINUTE);
    expect((await login('/api/login', user.userName, user.password, OWNER)).statusCode).toBe(200);
    const actions = await auditedActions();
    expect(actions.filter((action) => action === AuditActions.SignInSlowed)).toHaveLength(1);
    expect(actions).not.toContain(AuditActions.SignInBlocked);
  });

  it('does not empty the account’s ceiling when the owner signs in', async () => {
    const user = await givenUser(t.ctx);
    for (let i = 0; i < 39; i += 1) await login('/api/login', user.userName, 'guess', botnet(i));
    expect((await login('/api/login', user.userName, user.password, OWNER)).statusCode).toBe(200);
    await login('/api/login', user.userName, 'guess', botnet(39));
    expectThrottled(await login('/api/login', user.userName, user.password, OWNER), 60);
  });

  // An hour and a quarter, so some hour holds the burst and everything let through after it.
  it('lets no more than 100 failures on one account through in any hour, waiting at most a minute each time', async () => {
    const user = await givenUser(t.ctx);
    const start = t.clock.now();
    const failures: number[] = [];
    let attacker = 0;
    while (t.clock.now() < start + 75 * MINUTE) {
      const response = await login('/api/login', user.userName, 'guess', botnet(attacker));
      if (response.statusCode === 429) {
        const retryAfter = Number(response.headers['retry-after']);
        expect(retryAfter).toBeGreaterThan(0);
        expect(retryAfter).toBeLessThanOrEqual(60);
        t.clock.advance(retryAfter * 1000);
        continue;
      }
      expect(response.statusCode).toBe(401);
      failures.push(t.clock.now());
      attacker += 1;
    }
    const inHourFrom = (from: number) => failures.filter((at) => at >= from && at <= from + HOUR).length;
    expect(Math.max(...failures.map(inHourFrom))).toBeLessThanOrEqual(100);
    expect(failures.length).toBeGreaterThan(100);
    expect((await auditedActions()).filter((action) => action === AuditActions.SignInSlowed)).toHaveLength(1);
  });

  it('audits the failure that started a block', async () => {
    for (let i = 0; i < 5; i += 1) await login('/api/login', 'target', 'guess', STRANGER);
    const actions = (await recentAudit(t.ctx.db, 2)).map((entry) => entry.Entry);
    expect(actions).toContainEqual({ [AuditActions.SignInBlocked]: { UserName: 'target', IpAddress: STRANGER } });
  });
});
