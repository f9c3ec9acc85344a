import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { ErrorCodes } from '@postern/protocol';
import { createTestReplica, type TestApp } from './test-support/test-app.js';
import { bothStores } from './test-support/store-kinds.js';
import { useTestApp } from './test-support/use-test-app.js';
import { givenAdmin, givenUser } from './test-support/factories.js';
import { cookieFrom, signInAdmin, signInUser } from './test-support/http.js';
import { givenEnrolledTotp, wrongCode } from './test-support/totp.js';
import { TEST_LICENCE_KEYS, testLicenceText } from './test-support/licence.js';
import { totpCodeAt } from './auth/totp.js';
import { IpAttestor, ipAttestor } from './ip-discovery/attestation.js';
import { SecretBox } from './secrets/secret-box.js';
import { RuntimeSettings } from './settings/runtime-settings.js';

/**
 * Issue 17 item 1: replicas share one store and nothing else, so whatever one replica learns that
 * changes a security answer must be answered alike by every other. Each test acts on replica A and
 * checks the answer of replica B, a second app on the same store built from a fresh copy of the
 * server's modules (createTestReplica): state kept in memory, per app or per module, would make
 * these tests fail. (SAML request ids and spent assertions: test/saml-refusals.test.ts, with a real IdP.)
 */

const STEP = 30_000;
/**
 * A replica loads its own copy of the server's modules, and the tests hash a few passwords: on a busy
 * machine that takes longer than the default limits, so each test and its set-up get this long.
 */
const REPLICA_TEST_MS = 60_000;
const STRANGER = '198.51.100.7';
const OWN = '192.0.2.1';
const DISCOVERED = '203.0.113.80';
const CONFIG = {
  DiscoverIP: true,
  DiscoverIPURL: '',
  DiscoverIPTrustUnattested: false,
  DebugMode: false,
  GELFListenerURL: '',
  KioskSessionDuration: 15,
};

describe.each(bothStores())('state shared between replicas on one store (%s)', { timeout: REPLICA_TEST_MS }, (kind) => {
  const a = useTestApp(kind, { config: { licencePublicKeys: TEST_LICENCE_KEYS } });
  /** A new replica for each test (useTestApp closes it after the test). */
  let b: TestApp;
  beforeEach(async () => {
    b = await createTestReplica(a);
  }, REPLICA_TEST_MS);

  const post = (replica: TestApp, url: string, payload: object, cookie?: string, ip = OWN) =>
    replica.app.inject({
      method: 'POST',
      url,
      payload,
      remoteAddress: ip,
      headers: cookie === undefined ? {} : { cookie },
    });
  const login = (replica: TestApp, UserName: string, Password: string, ip = STRANGER) =>
    post(replica, '/api/login', { UserName, Password }, undefined, ip);
  const expectInvalidCode = (response: LightMyRequestResponse) => {
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ Err: ErrorCodes.invalidCode });
  };
  /** A right code refused because it was accepted once already (on any replica). */
  const expectSpentCode = (response: LightMyRequestResponse) => {
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ Err: ErrorCodes.totpCodeUsed });
  };

  it('builds the replica from its own copy of the modules, so module-level state is not shared either', () => {
    expect(a.ctx.secrets).toBeInstanceOf(SecretBox);
    expect(b.ctx.secrets).not.toBeInstanceOf(SecretBox);
  });

  describe('sign-in throttling', () => {
    it('adds the failures made on both replicas, and blocks on each', async () => {
      const user = await givenUser(a.ctx);
      // Three on A and two on B: neither alone reaches the five that block the pair.
      for (const replica of [a, b, a, b, a]) {
        expect((await login(replica, user.userName, 'wrong')).statusCode).toBe(401);
      }
      for (const replica of [b, a]) {
        const blocked = await login(replica, user.userName, user.password);
        expect(blocked.statusCode).toBe(429);
        expect(blocked.json()).toEqual({ Err: ErrorCodes.tooManyRequests, Extra: '900s' });
      }
      // The owner elsewhere is not held back on either.
      expect((await login(b, user.userName, user.password, OWN)).statusCode).toBe(200);
    });

    it('counts second-factor guesses on one replica against the next code on another', async () => {
      const user = await givenUser(a.ctx, { totpEnabled: true });
      const secret = await givenEnrolledTotp(a, 'users', user.id);
      a.clock.advance(STEP);
      const cookie = cookieFrom(await login(a, user.userName, user.password), 'postern_session');
      // Two wrong codes on A and one on B: the third attempt makes the account wait (the first two are free).
      for (const [replica, salt] of [
        [a, 0],
        [a, 1],
        [b, 2],
      ] as const) {
        expectInvalidCode(
          await post(replica, '/api/otp/verify', { Code: wrongCode(secret, a.clock.now(), salt) }, cookie),
        );
      }
      const waiting = await post(b, '/api/otp/verify', { Code: totpCodeAt(secret, a.clock.now()) }, cookie);
      expect(waiting.statusCode).toBe(429);
    });
  });

  describe('TOTP codes', () => {
    it('refuses on one replica a code already used on another', async () => {
      const user = await givenUser(a.ctx, { totpEnabled: true });
      const secret = await givenEnrolledTotp(a, 'users', user.id);
      a.clock.advance(STEP);
      const code = totpCodeAt(secret, a.clock.now());

      const onA = cookieFrom(await login(a, user.userName, user.password, OWN), 'postern_session');
      expect((await post(a, '/api/otp/verify', { Code: code }, onA)).json()).toEqual({
        data: { Outcome: 'SignedIn' },
      });

      const onB = cookieFrom(await login(b, user.userName, user.password, OWN), 'postern_session');
      expectSpentCode(await post(b, '/api/otp/verify', { Code: code }, onB));
    });

    it('lets exactly one of two replicas accept the same code sent to both at once', async () => {
      const user = await givenUser(a.ctx, { totpEnabled: true });
      const secret = await givenEnrolledTotp(a, 'users', user.id);
      a.clock.advance(STEP);
      const code = totpCodeAt(secret, a.clock.now());
      const onA = cookieFrom(await login(a, user.userName, user.password, OWN), 'postern_session');
      const onB = cookieFrom(await login(b, user.userName, user.password, OWN), 'postern_session');

      const answers = await Promise.all([
        post(a, '/api/otp/verify', { Code: code }, onA),
        post(b, '/api/otp/verify', { Code: code }, onB),
      ]);

      expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 400]);
      expectSpentCode(answers.find((answer) => answer.statusCode === 400) as LightMyRequestResponse);
    });
  });

  describe('address attestations', () => {
    it('honours on one replica what the discovery responder of another attested, and only that', async () => {
      const user = await givenUser(a.ctx);
      const cookie = await signInUser(a.app, user.userName, user.password);
      // What replica A's responder hands the browser that reached it on port 8000.
      const attestation = ipAttestor(a.ctx.secrets).issue({ ip: DISCOVERED, port: 8000 }, a.clock.now());
      const logIps = (Attestation: string, Port = 8000) =>
        post(b, '/api/log_ips', { IPs: [{ IP: DISCOVERED, Port, Attestation }] }, cookie);

      // Another port, or an installation with another secret key, does not vouch for the address.
      const otherKey = new IpAttestor(new SecretBox([randomBytes(32)])).issue(
        { ip: DISCOVERED, port: 8000 },
        a.clock.now(),
      );
      for (const refused of [await logIps(attestation, 8001), await logIps(otherKey)]) {
        expect(refused.statusCode).toBe(400);
        expect(refused.json()).toEqual({ Err: ErrorCodes.ipAddressNotSeen, Extra: 'IPs.0.IP' });
      }
      const accepted = await logIps(attestation);
      expect(accepted.statusCode, accepted.body).toBe(200);
      expect((await a.ctx.db.selectFrom('sessionIps').select('ip').execute()).map((row) => row.ip)).toEqual([
        DISCOVERED,
      ]);
    });
  });

  describe('settings and the licence', () => {
    let adminCookie: string;
    beforeEach(async () => {
      const admin = await givenAdmin(a.ctx);
      adminCookie = await signInAdmin(a.app, admin.userName, admin.password);
    });
    const putConfig = async (changes: Partial<typeof CONFIG>) => {
      const response = await a.app.inject({
        method: 'PUT',
        url: '/api/admin/settings/config',
        headers: { cookie: adminCookie },
        payload: { ...CONFIG, ...changes },
      });
      expect(response.statusCode, response.body).toBe(200);
    };

    it('answers on one replica with a setting just changed through another, in both directions', async () => {
      const user = await givenUser(a.ctx);
      const cookie = await signInUser(b.app, user.userName, user.password);
      const unattested = () => post(b, '/api/log_ips', { IPs: [{ IP: DISCOVERED, Port: 8000 }] }, cookie);
      expect((await unattested()).statusCode).toBe(400);

      await putConfig({ DiscoverIPTrustUnattested: true });
      expect((await unattested()).statusCode).toBe(200);

      // Turning the risk off again is what must never lag behind.
      await putConfig({ DiscoverIPTrustUnattested: false });
      const refused = await unattested();
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toEqual({ Err: ErrorCodes.ipAddressNotSeen, Extra: 'IPs.0.IP' });
    });

    it('applies DebugMode changed through one replica at the next runtime pass of another', async () => {
      const runtime = new RuntimeSettings(b.ctx);
      try {
        await runtime.applyOnce();
        expect(b.ctx.logger.level).not.toBe('debug');
        await putConfig({ DebugMode: true });
        await runtime.applyOnce();
        expect(b.ctx.logger.level).toBe('debug');
      } finally {
        await runtime.stop();
      }
    });

    it('shows on one replica the licence installed through another', async () => {
      const licence = () =>
        b.app.inject({ method: 'GET', url: '/api/admin/settings/license', headers: { cookie: adminCookie } });
      expect((await licence()).json<{ data: { Licensed: boolean } }>().data.Licensed).toBe(false);

      const installed = await a.app.inject({
        method: 'PUT',
        url: '/api/admin/settings/license',
        headers: { cookie: adminCookie },
        payload: { License: testLicenceText(a.clock.now()) },
      });
      expect(installed.statusCode, installed.body).toBe(200);

      const status = (await licence()).json<{ data: { Licensed: boolean; ID: string } }>().data;
      expect(status).toMatchObject({ Licensed: true, ID: 'lic-test-grants' });
    });
  });
});
