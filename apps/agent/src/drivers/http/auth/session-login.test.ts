import { describe, expect, it } from 'vitest';
import { SessionLogin } from './session-login.js';
import { staticToken } from './static-token.js';

describe('SessionLogin', () => {
  it('logs in once for concurrent callers and again shortly before the token expires', async () => {
    let now = 0;
    let logins = 0;
    const session = new SessionLogin({
      login: () => Promise.resolve({ token: `t${++logins}`, expiresInMs: 30 * 60_000 }),
      headers: (token) => ({ 'X-auth-access-token': token }),
      secrets: ['password'],
      refreshMarginMs: 60_000,
      now: () => now,
    });
    const first = await Promise.all([session.authorize(), session.authorize(), session.authorize()]);
    expect(first.map((a) => a.headers['X-auth-access-token'])).toEqual(['t1', 't1', 't1']);
    now = 28 * 60_000;
    expect((await session.authorize()).credential).toBe('t1');
    now = 29 * 60_000 + 1;
    expect((await session.authorize()).credential).toBe('t2');
    expect([...session.secrets()]).toEqual(['password', 't2', 't1']);
  });

  it('renews after a 401 only when the failed call used the current token', async () => {
    let logins = 0;
    const session = new SessionLogin({
      login: () => Promise.resolve({ token: `t${++logins}`, expiresInMs: null }),
      headers: (token) => ({ token }),
      secrets: [],
    });
    await session.authorize();
    expect(await Promise.all([session.renew('t1'), session.renew('t1')])).toEqual([true, true]);
    expect(logins).toBe(2);
    expect(await session.renew('t1')).toBe(true); // stale: t2 is already there
    expect(logins).toBe(2);
  });

  it('a failed login rejects its callers and the next call tries again', async () => {
    let attempt = 0;
    const session = new SessionLogin({
      login: () =>
        ++attempt === 1 ? Promise.reject(new Error('refused')) : Promise.resolve({ token: 'ok', expiresInMs: null }),
      headers: (token) => ({ token }),
      secrets: [],
    });
    await expect(session.authorize()).rejects.toThrow('refused');
    expect((await session.authorize()).credential).toBe('ok');
  });
});

describe('staticToken', () => {
  it('sends the token under its scheme and never renews', async () => {
    const bearer = staticToken({ token: 'abc' });
    expect((await bearer.authorize()).headers).toEqual({ Authorization: 'Bearer abc' });
    expect(await bearer.renew('static')).toBe(false);
    expect((await staticToken({ token: 'k', header: 'X-API-Key', scheme: '' }).authorize()).headers).toEqual({
      'X-API-Key': 'k',
    });
  });
});
