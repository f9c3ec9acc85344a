import { describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { AuditActions, ErrorCodes } from '@postern/protocol';
import { createTestReplica, type TestApp } from '../test-support/test-app.js';
import { useTestApp } from '../test-support/use-test-app.js';
import { givenAdmin, givenUser, PASSWORD_TEST_TIMEOUT_MS } from '../test-support/factories.js';
import { cookieFrom, setCookies } from '../test-support/http.js';
import { givenAdminSession } from '../test-support/sessions.js';
import { adminClient } from '../test-support/admin-client.js';
import { recentAudit } from '../audit/audit.js';
import { resetAdminPassword } from '../admins/admins.service.js';
import { DEVICE_COOKIE_ENTRIES_MAX, DEVICE_COOKIE_LIFETIME_MS } from './device-cookie.js';

const MINUTE = 60_000;
const OWNER = '203.0.113.50';
/** The probe's attackers: eight addresses, five wrong passwords each, then a fresh one per guess. */
const attacker = (n: number) => `10.0.${Math.floor(n / 5)}.1`;
const NEW_PASSWORD = 'a brand new passphrase';

type Realm = 'user' | 'admin';
/** An account the tests sign in to: a user's or an administrator's. */
type Account = { id: string; userName: string; password: string };
const FORMS = [
  ['user', '/api/login'],
  ['admin', '/api/admin/login'],
] as const;

// Every sign-in here verifies a password (argon2id), up to fifty in a test: signing in is the subject.
describe('device cookies at sign-in (sqlite)', { timeout: PASSWORD_TEST_TIMEOUT_MS }, () => {
  const t = useTestApp('sqlite');

  const login = (app: TestApp, url: string, UserName: string, Password: string, ip: string, cookie?: string) =>
    app.app.inject({
      method: 'POST',
      url,
      payload: { UserName, Password },
      remoteAddress: ip,
      ...(cookie === undefined ? {} : { headers: { cookie } }),
    });
  const expectThrottled = (response: LightMyRequestResponse, seconds: number) => {
    expect(response.statusCode).toBe(429);
    expect(response.headers['retry-after']).toBe(String(seconds));
    expect(response.json()).toEqual({ Err: ErrorCodes.tooManyRequests, Extra: `${seconds}s` });
  };

  /** A browser: it keeps the device cookie the server last set it and sends it back, as browsers do. */
  const browser = () => {
    const self = {
      device: undefined as string | undefined,
      keep(response: LightMyRequestResponse) {
        self.device = cookieFrom(response, 'postern_device') ?? self.device;
        return response;
      },
      async login(url: string, UserName: string, Password: string, ip = OWNER, app: TestApp = t) {
        return self.keep(await login(app, url, UserName, Password, ip, self.device));
      },
    };
    return self;
  };
  const givenAccount = (realm: Realm, userName?: string) =>
    realm === 'user'
      ? givenUser(t.ctx, userName === undefined ? {} : { userName })
      : givenAdmin(t.ctx, userName === undefined ? {} : { userName });
  /** Five wrong passwords from the owner's address, without a device cookie: untrusted clients there are blocked. */
  const blockUntrusted = async (url: string, userName: string) => {
    for (let i = 0; i < 5; i += 1) expect((await login(t, url, userName, 'wrong', OWNER)).statusCode).toBe(401);
  };

  /** A browser that signed in to `account` on `url`: it holds the account's device cookie. */
  const knownBrowser = async (url: string, account: Account) => {
    const known = browser();
    expect((await known.login(url, account.userName, account.password)).statusCode).toBe(200);
    return known;
  };
  /** A request of another administrator, signed in elsewhere. */
  const asAdmin = async (method: 'PUT' | 'DELETE', url: string, payload?: object) =>
    adminClient(t.app, await givenAdminSession(t)).request(method, url, payload);
  const newPassword = { PlainPassword: NEW_PASSWORD, ConfirmPassword: NEW_PASSWORD };
  /** The user behind the session `cookies` changes their password from the owner's address. */
  const changePassword = (cookies: (string | undefined)[], ExistingPassword: string) =>
    t.app.inject({
      method: 'PUT',
      url: '/api/password',
      headers: { cookie: cookies.filter((cookie) => cookie !== undefined).join('; ') },
      payload: { ExistingPassword, NewPassword: NEW_PASSWORD },
      remoteAddress: OWNER,
    });

  it.each(FORMS)(
    'signs the %s owner in at once from a known browser while strangers keep the account’s ceiling full, and still slows a new browser',
    async (realm, url) => {
      const account = await givenAccount(realm);
      const known = browser();
      expect((await known.login(url, account.userName, account.password)).statusCode).toBe(200);

      for (let i = 0; i < 40; i += 1) {
        expect((await login(t, url, account.userName, 'guess', attacker(i))).statusCode).toBe(401);
      }
      let guesses = 40;
      let ownerSignIns = 0;
      for (let minute = 0; minute < 3; minute += 1) {
        t.clock.advance(MINUTE);
        expect((await login(t, url, account.userName, 'guess', attacker(guesses))).statusCode).toBe(401);
        guesses += 5;
        for (let attempt = 0; attempt < 4; attempt += 1) {
          expect((await known.login(url, account.userName, account.password)).statusCode).toBe(200);
          ownerSignIns += 1;
        }
        expectThrottled(await browser().login(url, account.userName, account.password), 60);
      }
      expect(ownerSignIns).toBe(12);
    },
  );

  it('locks out a device cookie after five failures while the owner’s other known browser signs in', async () => {
    const user = await givenUser(t.ctx);
    const laptop = browser();
    const phone = browser();
    expect((await laptop.login('/api/login', user.userName, user.password)).statusCode).toBe(200);
    expect((await phone.login('/api/login', user.userName, user.password)).statusCode).toBe(200);

    for (let i = 0; i < 5; i += 1) {
      expect((await laptop.login('/api/login', user.userName, `wrong ${i}`)).statusCode).toBe(401);
    }
    expectThrottled(await laptop.login('/api/login', user.userName, user.password), 900);
    expectThrottled(await laptop.login('/api/login', user.userName, 'wrong again'), 900);
    expect((await phone.login('/api/login', user.userName, user.password)).statusCode).toBe(200);
    // The device's failures were its own: untrusted clients at the same address are not blocked.
    expect((await browser().login('/api/login', user.userName, user.password)).statusCode).toBe(200);

    const entries = (await recentAudit(t.ctx.db, 100)).map((entry) => entry.Entry);
    const failed = { UserName: user.userName, IpAddress: OWNER };
    expect(entries.filter((entry) => AuditActions.UserLoginFailed in entry)).toEqual(
      Array.from({ length: 5 }, () => ({ [AuditActions.UserLoginFailed]: failed })),
    );
    expect(entries.filter((entry) => AuditActions.SignInBlocked in entry)).toEqual([
      { [AuditActions.SignInBlocked]: { ...failed, Description: 'device cookie locked out' } },
    ]);

    t.clock.advance(15 * MINUTE);
    expect((await laptop.login('/api/login', user.userName, user.password)).statusCode).toBe(200);
  });

  /** What each case's browser presents, and the password in force by then. */
  type Presented = { cookie: string | undefined; password: string };
  const untrustedCases: [string, Realm, (account: Account) => Promise<Presented>][] = [
    ['no device cookie', 'user', (account) => Promise.resolve({ cookie: undefined, password: account.password })],
    [
      'a device cookie of another account',
      'user',
      async (account) => {
        const other = await knownBrowser('/api/login', await givenUser(t.ctx));
        return { cookie: other.device, password: account.password };
      },
    ],
    [
      'a tampered device cookie',
      'user',
      async (account) => {
        const cookie = (await knownBrowser('/api/login', account)).device ?? '';
        return { cookie: `${cookie.slice(0, -2)}${cookie.endsWith('AA') ? 'BB' : 'AA'}`, password: account.password };
      },
    ],
    [
      'an expired device cookie',
      'user',
      async (account) => {
        const known = await knownBrowser('/api/login', account);
        t.clock.advance(DEVICE_COOKIE_LIFETIME_MS);
        return { cookie: known.device, password: account.password };
      },
    ],
    [
      'a device cookie issued before an administrator reset the password',
      'user',
      async (account) => {
        const known = await knownBrowser('/api/login', account);
        const reset = await asAdmin('PUT', `/api/admin/users/${account.id}`, {
          ID: account.id,
          Name: 'Reset',
          UserName: account.userName,
          AuthType: 'local',
          Company: 'Example',
          Duration: 60,
          AclIds: [],
          ...newPassword,
        });
        expect(reset.status).toBe(200);
        return { cookie: known.device, password: NEW_PASSWORD };
      },
    ],
    [
      'a device cookie issued before an administrator ended all user sessions',
      'user',
      async (account) => {
        const known = await knownBrowser('/api/login', account);
        expect((await asAdmin('DELETE', '/api/admin/sessions')).status).toBe(200);
        return { cookie: known.device, password: account.password };
      },
    ],
    [
      'a device cookie issued before the command line reset the password',
      'admin',
      async (account) => {
        const known = await knownBrowser('/api/admin/login', account);
        // What `postern admin reset-password --password-stdin` runs.
        await resetAdminPassword(t.ctx, account.userName, NEW_PASSWORD);
        return { cookie: known.device, password: NEW_PASSWORD };
      },
    ],
    [
      'a device cookie issued before another administrator reset the password',
      'admin',
      async (account) => {
        const known = await knownBrowser('/api/admin/login', account);
        const reset = await asAdmin('PUT', `/api/admin/admins/${account.id}`, {
          ID: account.id,
          Name: 'Reset',
          UserName: account.userName,
          AuthType: 'local',
          TOTPEnabled: false,
          ...newPassword,
        });
        expect(reset.status).toBe(200);
        return { cookie: known.device, password: NEW_PASSWORD };
      },
    ],
  ];

  it.each(untrustedCases)('treats a sign-in with %s as an untrusted client', async (_name, realm, present) => {
    const url = realm === 'user' ? '/api/login' : '/api/admin/login';
    const account = await givenAccount(realm);
    const { cookie, password } = await present(account);
    await blockUntrusted(url, account.userName);
    expectThrottled(await login(t, url, account.userName, password, OWNER, cookie), 900);
  });

  it('revokes every device cookie of a user who changes their password, but renews the changing browser’s', async () => {
    const user = await givenUser(t.ctx);
    const laptop = browser();
    const session = cookieFrom(await laptop.login('/api/login', user.userName, user.password), 'postern_session');
    const phone = await knownBrowser('/api/login', user);

    const changed = await changePassword([session, laptop.device], user.password);
    expect(changed.statusCode).toBe(200);
    const before = laptop.device;
    laptop.keep(changed);
    expect(laptop.device).not.toBe(before);

    await blockUntrusted('/api/login', user.userName);
    expectThrottled(await phone.login('/api/login', user.userName, NEW_PASSWORD), 900);
    expect((await laptop.login('/api/login', user.userName, NEW_PASSWORD)).statusCode).toBe(200);
  });

  it('lets a known browser change the password while untrusted clients at its address are blocked', async () => {
    const user = await givenUser(t.ctx);
    const known = browser();
    const session = cookieFrom(await known.login('/api/login', user.userName, user.password), 'postern_session');
    await blockUntrusted('/api/login', user.userName);
    expectThrottled(await changePassword([session], user.password), 900);
    expect((await changePassword([session, known.device], user.password)).statusCode).toBe(200);
  });

  it('revokes every administrator’s device cookies when one ends all admin sessions, but keeps the asking browser known', async () => {
    const asking = await givenAdmin(t.ctx);
    const colleague = await givenAdmin(t.ctx);
    const asker = browser();
    const signedIn = await asker.login('/api/admin/login', asking.userName, asking.password);
    const otherBrowser = await knownBrowser('/api/admin/login', asking);
    const colleagueBrowser = await knownBrowser('/api/admin/login', colleague);

    const session = cookieFrom(signedIn, 'postern_admin_session') ?? '';
    const ended = await adminClient(t.app, `${session}; ${asker.device ?? ''}`).delete('/api/admin/adminsessions');
    expect(ended.body).toEqual({ data: { Ended: 2 } });
    asker.keep(ended.response);

    for (const [admin, known, trusted] of [
      [asking, asker, true],
      [asking, otherBrowser, false],
      [colleague, colleagueBrowser, false],
    ] as const) {
      await blockUntrusted('/api/admin/login', admin.userName);
      const response = await known.login('/api/admin/login', admin.userName, admin.password);
      if (trusted) expect(response.statusCode).toBe(200);
      else expectThrottled(response, 900);
    }
  });

  it('honours a device cookie issued by another replica', async () => {
    const other = await createTestReplica(t);
    const user = await givenUser(t.ctx);
    const known = browser();
    expect((await known.login('/api/login', user.userName, user.password, OWNER, t)).statusCode).toBe(200);
    for (let i = 0; i < 5; i += 1) {
      expect((await login(other, '/api/login', user.userName, 'wrong', OWNER)).statusCode).toBe(401);
    }
    expectThrottled(await login(other, '/api/login', user.userName, user.password, OWNER), 900);
    expect((await known.login('/api/login', user.userName, user.password, OWNER, other)).statusCode).toBe(200);
  });

  it('keeps an administrator’s device cookie on the user form too, where the name signs the admin in', async () => {
    const admin = await givenAdmin(t.ctx);
    const known = await knownBrowser('/api/admin/login', admin);
    await blockUntrusted('/api/admin/login', admin.userName);
    expectThrottled(await browser().login('/api/login', admin.userName, admin.password), 900);
    const onUserForm = await known.login('/api/login', admin.userName, admin.password);
    expect(onUserForm.statusCode).toBe(403);
    expect(onUserForm.json()).toEqual({ Err: ErrorCodes.unauthorised });
  });

  it('remembers a user and an administrator on one browser, and at most five accounts, the oldest dropping out', async () => {
    const first = await givenUser(t.ctx);
    const admin = await givenAdmin(t.ctx);
    const shared = browser();
    await shared.login('/api/login', first.userName, first.password);
    await shared.login('/api/admin/login', admin.userName, admin.password);
    await blockUntrusted('/api/login', first.userName);
    await blockUntrusted('/api/admin/login', admin.userName);
    expect((await shared.login('/api/login', first.userName, first.password)).statusCode).toBe(200);
    expect((await shared.login('/api/admin/login', admin.userName, admin.password)).statusCode).toBe(200);

    for (let i = 0; i < DEVICE_COOKIE_ENTRIES_MAX; i += 1) {
      const user = await givenUser(t.ctx);
      expect((await shared.login('/api/login', user.userName, user.password)).statusCode).toBe(200);
    }
    expect(shared.device?.split('=')[1]?.split('~')).toHaveLength(DEVICE_COOKIE_ENTRIES_MAX);
    await blockUntrusted('/api/login', first.userName);
    expectThrottled(await shared.login('/api/login', first.userName, first.password), 900);
  });

  it('issues the device cookie at the password step of an account with a second factor', async () => {
    const user = await givenUser(t.ctx, { totpEnabled: true });
    const known = browser();
    const response = await known.login('/api/login', user.userName, user.password);
    expect(response.json()).toEqual({ Err: ErrorCodes.totpEnrolmentRequired });
    await blockUntrusted('/api/login', user.userName);
    expect((await known.login('/api/login', user.userName, user.password)).json()).toEqual({
      Err: ErrorCodes.totpEnrolmentRequired,
    });
  });

  it.each(FORMS)('sets a hardened %s device cookie for 90 days, after the session cookie', async (realm, url) => {
    const account = await givenAccount(realm);
    const response = await login(t, url, account.userName, account.password, OWNER);
    const [session, device, ...rest] = setCookies(response);
    expect(session).toMatch(/^__Host-postern_(admin_)?session=/);
    expect(rest).toEqual([]);
    expect(device).toMatch(/^__Host-postern_device=[A-Za-z0-9._~-]+;/);
    const attributes = (device ?? '').split('; ').slice(1);
    expect(attributes.sort()).toEqual(
      [
        `Expires=${new Date(t.clock.now() + DEVICE_COOKIE_LIFETIME_MS).toUTCString()}`,
        'HttpOnly',
        'Path=/',
        'SameSite=Strict',
        'Secure',
      ].sort(),
    );
  });

  it('gives a kiosk sign-in a device cookie that dies with the browser, as its session cookie does', async () => {
    const user = await givenUser(t.ctx);
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/login',
      payload: { UserName: user.userName, Password: user.password, KioskMode: true },
    });
    const device = setCookies(response).find((cookie) => cookie.startsWith('__Host-postern_device='));
    expect(device).toContain('HttpOnly');
    expect(device).not.toContain('Expires=');
    expect(device).not.toContain('Max-Age=');
  });

  it('drops Secure and the __Host- prefix from the device cookie only in plain-HTTP development mode', async () => {
    // Read at each request (http/cookies.ts), so the test sets it; the next test has it off again.
    t.ctx.config.insecureHttp = true;
    const user = await givenUser(t.ctx);
    const response = await login(t, '/api/login', user.userName, user.password, OWNER);
    const device = setCookies(response).find((cookie) => cookie.startsWith('postern_device='));
    expect(device).toContain('HttpOnly');
    expect(device).not.toContain('Secure');
  });
});
