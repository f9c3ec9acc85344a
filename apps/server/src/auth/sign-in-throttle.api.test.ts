import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditActions, ErrorCodes } from '@postern/protocol';
import { createTestApp, testStoreKinds, type TestApp } from '../test-support/test-app.js';
import { givenAdmin, givenUser } from '../test-support/factories.js';
import { recentAudit } from '../audit/audit.js';

const MINUTE = 60_000;

describe.each(testStoreKinds())('brute-force protection at sign-in (%s)', (kind) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp(kind);
  });
  afterEach(async () => {
    await t.close();
  });

  const login = (url: string, UserName: string, Password: string, ip = '198.51.100.7') =>
    t.app.inject({ method: 'POST', url, payload: { UserName, Password }, remoteAddress: ip });

  it.each([
    ['user', '/api/login'],
    ['admin', '/api/admin/login'],
  ] as const)(
    'locks a %s account after five failures, answering the right password the same way',
    async (realm, url) => {
      const account = realm === 'user' ? await givenUser(t.ctx) : await givenAdmin(t.ctx);
      for (let i = 0; i < 5; i += 1) {
        expect((await login(url, account.userName, `wrong ${i}`)).statusCode).toBe(401);
      }
      const right = await login(url, account.userName, account.password);
      const wrong = await login(url, account.userName, 'wrong again');
      for (const response of [right, wrong]) {
        expect(response.statusCode).toBe(429);
        expect(response.headers['retry-after']).toBe('900');
        expect(response.json()).toEqual({ Err: ErrorCodes.tooManyRequests, Extra: '900s' });
      }
      // From another address the account is still locked: the lock is per account.
      expect((await login(url, account.userName, account.password, '203.0.113.50')).statusCode).toBe(429);

      t.clock.advance(15 * MINUTE);
      expect((await login(url, account.userName, account.password)).statusCode).toBe(200);
    },
  );

  it('locks names that do not exist just like real ones, so locks reveal nothing', async () => {
    for (let i = 0; i < 5; i += 1) await login('/api/login', 'ghost', 'guess');
    expect((await login('/api/login', 'ghost', 'guess')).statusCode).toBe(429);
  });

  it('stops one address spraying many accounts', async () => {
    for (let i = 0; i < 20; i += 1) await login('/api/login', `victim${i}`, 'Winter2026!');
    const user = await givenUser(t.ctx);
    expect((await login('/api/login', user.userName, user.password)).statusCode).toBe(429);
    expect((await login('/api/login', user.userName, user.password, '192.0.2.200')).statusCode).toBe(200);
  });

  it('forgets an account’s failures once it signs in', async () => {
    const user = await givenUser(t.ctx);
    for (let i = 0; i < 4; i += 1) await login('/api/login', user.userName, 'wrong');
    expect((await login('/api/login', user.userName, user.password)).statusCode).toBe(200);
    for (let i = 0; i < 4; i += 1) await login('/api/login', user.userName, 'wrong');
    expect((await login('/api/login', user.userName, user.password)).statusCode).toBe(200);
  });

  it('audits the failure that started a lock', async () => {
    for (let i = 0; i < 5; i += 1) await login('/api/login', 'target', 'guess');
    const actions = (await recentAudit(t.ctx.db, 2)).map((entry) => entry.Entry);
    expect(actions).toContainEqual({ [AuditActions.SignInBlocked]: { UserName: 'target', IpAddress: '198.51.100.7' } });
  });
});
