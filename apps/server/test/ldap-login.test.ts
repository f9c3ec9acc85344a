import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCodes } from '@postern/protocol';
import { freePort } from '@postern/test-support';
import { useTestApp } from '../src/test-support/use-test-app.js';
import { givenAdmin, givenUser } from '../src/test-support/factories.js';
import { writeSetting } from '../src/settings/settings.js';
import { cookieFrom } from '../src/test-support/http.js';
import { missingSlapd, requireSlapd, startSlapd, type Slapd } from './support/slapd.js';

/** Sign-in through /api/login and /api/admin/login for accounts that live in a real slapd. */
describe('LDAP sign-in (sqlite)', { timeout: 60_000 }, () => {
  const missing = missingSlapd();
  let slapd: Slapd | undefined;
  const t = useTestApp('sqlite');

  beforeAll(async () => {
    if (missing === null) slapd = await startSlapd({ users: [{ uid: 'ada', password: 'directory secret' }] });
  }, 60_000);
  afterAll(async () => {
    await slapd?.stop();
  });
  beforeEach((context) => {
    requireSlapd(context);
  });

  async function useLdap(url: string, startTls = false, skipVerify = false) {
    const now = t.clock.now();
    await writeSetting(t.ctx.db, 'LDAPURL', url, now);
    await writeSetting(t.ctx.db, 'LDAPStartTLS', startTls, now);
    await writeSetting(t.ctx.db, 'LDAPSkipVerifyTLS', skipVerify, now);
  }
  const login = (url: string, UserName: string, Password: string) =>
    t.app.inject({ method: 'POST', url, payload: { UserName, Password } });
  const ldap = () => {
    if (slapd === undefined) throw new Error('slapd did not start');
    return slapd;
  };

  it.each([
    ['plain LDAP', () => [ldap().ldapUrl, false, false] as const],
    ['StartTLS', () => [ldap().ldapUrl, true, true] as const],
    ['LDAPS', () => [ldap().ldapsUrl, false, true] as const],
    ['the local socket', () => [ldap().ldapiUrl, false, false] as const],
  ])('signs an LDAP user in by binding as their DN over %s', async (_name, settings) => {
    const [url, startTls, skipVerify] = settings();
    await useLdap(url, startTls, skipVerify);
    await givenUser(t.ctx, { userName: 'ada', authType: 'LDAP', passwordHash: null, ldapDn: ldap().dnOf('ada') });
    const response = await login('/api/login', 'ada', 'directory secret');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ data: { UserName: 'ada', AuthType: 'LDAP' } });
  });

  it('refuses a wrong password and an empty one with the same answer as any bad sign-in', async () => {
    await useLdap(ldap().ldapUrl);
    await givenUser(t.ctx, { userName: 'ada', authType: 'LDAP', passwordHash: null, ldapDn: ldap().dnOf('ada') });
    expect((await login('/api/login', 'ada', 'guess')).json()).toEqual({ Err: ErrorCodes.invalidCredentials });
    expect((await t.ctx.metrics.scrape()).body).toContain(
      'postern_auth_attempts_total{method="ldap",result="failure"} 1\n',
    );
    // An empty password never reaches the directory (it would be an anonymous bind); the API refuses it first.
    expect((await login('/api/login', 'ada', '')).statusCode).toBe(400);
  });

  it('refuses a verified TLS connection to an untrusted certificate as the directory being unavailable', async () => {
    await useLdap(ldap().ldapsUrl, false, false);
    await givenUser(t.ctx, { userName: 'ada', authType: 'LDAP', passwordHash: null, ldapDn: ldap().dnOf('ada') });
    const response = await login('/api/login', 'ada', 'directory secret');
    expect(response.statusCode).toBe(503);
    expect(response.json()).toEqual({ Err: ErrorCodes.ldapUnavailable });
  });

  it('says the directory is unavailable when nobody listens, without counting a failure', async () => {
    await useLdap(`ldap://127.0.0.1:${await freePort()}`);
    await givenUser(t.ctx, { userName: 'ada', authType: 'LDAP', passwordHash: null, ldapDn: ldap().dnOf('ada') });
    for (let i = 0; i < 6; i += 1) {
      expect((await login('/api/login', 'ada', 'directory secret')).json()).toEqual({
        Err: ErrorCodes.ldapUnavailable,
      });
    }
    // An outage locks nobody out: once the directory is back, the same person signs in.
    await useLdap(ldap().ldapUrl);
    expect((await login('/api/login', 'ada', 'directory secret')).statusCode).toBe(200);
    // Nor is it a failed attempt in the metrics: only the one sign-in that reached the directory counts.
    const { body } = await t.ctx.metrics.scrape();
    expect(body).toContain('postern_auth_attempts_total{method="ldap",result="success"} 1\n');
    expect(body).not.toContain('result="failure"');
  });

  it('judges an LDAP user’s known browser by its device cookie, as it does a local user’s', async () => {
    await useLdap(ldap().ldapUrl);
    await givenUser(t.ctx, { userName: 'ada', authType: 'LDAP', passwordHash: null, ldapDn: ldap().dnOf('ada') });
    const device = cookieFrom(await login('/api/login', 'ada', 'directory secret'), 'postern_device') ?? '';
    for (let i = 0; i < 5; i += 1) expect((await login('/api/login', 'ada', 'guess')).statusCode).toBe(401);
    expect((await login('/api/login', 'ada', 'directory secret')).statusCode).toBe(429);
    const known = await t.app.inject({
      method: 'POST',
      url: '/api/login',
      payload: { UserName: 'ada', Password: 'directory secret' },
      headers: { cookie: device },
    });
    expect(known.statusCode).toBe(200);
  });

  it('signs an LDAP admin in', async () => {
    await useLdap(ldap().ldapUrl);
    await givenAdmin(t.ctx, {
      userName: 'ada-admin',
      authType: 'LDAP',
      passwordHash: null,
      ldapDn: ldap().dnOf('ada'),
    });
    const response = await login('/api/admin/login', 'ada-admin', 'directory secret');
    expect(response.statusCode).toBe(200);
  });
});
