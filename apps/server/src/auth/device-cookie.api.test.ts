import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { AuditActions, ErrorCodes } from '@postern/protocol';
import { createTestApp, createTestReplica, testStoreKinds, type TestApp } from '../test-support/test-app.js';
import { givenAdmin, givenUser } from '../test-support/factories.js';
import { cookieFrom, setCookies, signInAdmin } from '../test-support/http.js';
import { recentAudit } from '../audit/audit.js';
import { resetAdminPassword } from '../admins/admins.service.js';
import { DEVICE_COOKIE_ENTRIES_MAX, DEVICE_COOKIE_LIFETIME_MS } from './device-cookie.js';

const MINUTE = 60_000;
const OWNER = '203.0.113.50';
/** Tests that sign in 40 times or more hash as many passwords: slower than 5 s on a busy machine. */
const MANY_SIGN_INS_MS = 60_000;
/** The probe's attackers: eight addresses, five wrong passwords each, then a fresh one per guess. */
const attacker = (n: number) => `10.0.${Math.floor(n / 5)}.1`;
const NEW_PASSWORD = 'a brand new passphrase';

type Realm = 'user' | 'admin';
const FORMS = [
  ['user', '/api/login'],
  ['admin', '/api/admin/login'],
] as const;

describe.each(testStoreKinds())('device cookies at sign-in (%s)', (kind) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp(kind);
  });
  afterEach(async () => {
    await t.close();
  });

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
      async login(url: string, UserName: string, Password: string, ip = OWNER, app = t) {
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
    MANY_SIGN_INS_MS,
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

  const untrustedCases: [
    string,
    Realm,
    (name: string, password: string) => Promise<{ cookie?: string; password: string }>,
  ][] = [
    ['no device cookie', 'user', (_name, password) => Promise.resolve({ password })],
    [
      'a device cookie of another account',
      'user',
      async (_name, password) => {
        const other = await givenUser(t.ctx);
        const elsewhere = browser();
        await elsewhere.login('/api/login', other.userName, other.password);
        return { cookie: elsewhere.device, password };
      },
    ],
    [
      'a tampered device cookie',
      'user',
      async (name, password) => {
        const known = browser();
        await known.login('/api/login', name, password);
        const cookie = known.device ?? '';
        return { cookie: `${cookie.slice(0, -2)}${cookie.endsWith('AA') ? 'BB' : 'AA'}`, password };
      },
    ],
    [
      'an expired device cookie',
      'user',
      async (name, password) => {
        const known = browser();
        await known.login('/api/login', name, password);
        t.clock.advance(DEVICE_COOKIE_LIFETIME_MS);
        return { cookie: known.device, password };
      },
    ],
    [
      'a device cookie issued before an administrator reset the password',
      'user',
      async (name, password) => {
        const known = browser();
        await known.login('/api/login', name, password);
        const admin = await givenAdmin(t.ctx);
        const adminCookie = await signInAdmin(t.app, admin.userName, admin.password);
        const user = await t.ctx.db
          .selectFrom('users')
          .select('id')
          .where('userName', '=', name)
          .executeTakeFirstOrThrow();
        const reset = await t.app.inject({
          method: 'PUT',
          url: `/api/admin/users/${user.id}`,
          headers: { cookie: adminCookie },
          payload: {
            ID: user.id,
            Name: 'Reset',
            UserName: name,
            AuthType: 'local',
            Company: 'Example',
            Duration: 60,
            AclIds: [],
            PlainPassword: NEW_PASSWORD,
            ConfirmPassword: NEW_PASSWORD,
          },
        });
        expect(reset.statusCode).toBe(200);
        return { cookie: known.device, password: NEW_PASSWORD };
      },
    ],
    [
      'a device cookie issued before an administrator ended all user sessions',
      'user',
      async (name, password) => {
        const known = browser();
        await known.login('/api/login', name, password);
        const admin = await givenAdmin(t.ctx);
        const adminCookie = await signInAdmin(t.app, admin.userName, admin.password);
        const ended = await t.app.inject({
          method: 'DELETE',
          url: '/api/admin/sessions',
          headers: { cookie: adminCookie },
        });
        expect(ended.statusCode).toBe(200);
        return { cookie: known.device, password };
      },
    ],
    [
      'a device cookie issued before the command line reset the password',
      'admin',
      async (name, password) => {
        const known = browser();
        await known.login('/api/admin/login', name, password);
        // What `postern admin reset-password --password-stdin` runs.
        await resetAdminPassword(t.ctx, name, NEW_PASSWORD);
        return { cookie: known.device, password: NEW_PASSWORD };
      },
    ],
    [
      'a device cookie issued before another administrator reset the password',
      'admin',
      async (name, password) => {
        const known = browser();
        await known.login('/api/admin/login', name, password);
        const other = await givenAdmin(t.ctx);
        const otherCookie = await signInAdmin(t.app, other.userName, other.password);
        const target = await t.ctx.db
          .selectFrom('admins')
          .select('id')
          .where('userName', '=', name)
          .executeTakeFirstOrThrow();
        const reset = await t.app.inject({
          method: 'PUT',
          url: `/api/admin/admins/${target.id}`,
          headers: { cookie: otherCookie },
          payload: {
            ID: target.id,
            Name: 'Reset',
            UserName: name,
            AuthType: 'local',
            TOTPEnabled: false,
            PlainPassword: NEW_PASSWORD,
            ConfirmPassword: NEW_PASSWORD,
          },
        });
        expect(reset.statusCode).toBe(200);
        return { cookie: known.device, password: NEW_PASSWORD };
      },
    ],
  ];

  it.each(untrustedCases)('treats a sign-in with %s as an untrusted client', async (_name, realm, present) => {
    const url = realm === 'user' ? '/api/login' : '/api/admin/login';
    const account = await givenAccount(realm);
    const { cookie, password } = await present(account.userName, account.password);
    await blockUntrusted(url, account.userName);
    expectThrottled(await login(t, url, account.userName, password, OWNER, cookie), 900);
  });

  it('revokes every device cookie of a user who changes their password, but renews the changing browser’s', async () => {
    const user = await givenUser(t.ctx);
    const laptop = browser();
    const phone = browser();
    const signedIn = await laptop.login('/api/login', user.userName, user.password);
    await phone.login('/api/login', user.userName, user.password);

    const session = cookieFrom(signedIn, 'postern_session') ?? '';
    const changed = await t.app.inject({
      method: 'PUT',
      url: '/api/password',
      headers: { cookie: `${session}; ${laptop.device ?? ''}` },
      payload: { ExistingPassword: user.password, NewPassword: NEW_PASSWORD },
      remoteAddress: OWNER,
    });
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
    const session = cookieFrom(await known.login('/api/login', user.userName, user.password), 'postern_session') ?? '';
    await blockUntrusted('/api/login', user.userName);
    const change = (cookie: string) =>
      t.app.inject({
        method: 'PUT',
        url: '/api/password',
        headers: { cookie },
        payload: { ExistingPassword: user.password, NewPassword: NEW_PASSWORD },
        remoteAddress: OWNER,
      });
    expectThrottled(await change(session), 900);
    expect((await change(`${session}; ${known.device ?? ''}`)).statusCode).toBe(200);
  });

  it('revokes every administrator’s device cookies when one ends all admin sessions, but keeps the asking browser known', async () => {
    const asking = await givenAdmin(t.ctx);
    const colleague = await givenAdmin(t.ctx);
    const asker = browser();
    const otherBrowser = browser();
    const colleagueBrowser = browser();
    const signedIn = await asker.login('/api/admin/login', asking.userName, asking.password);
    await otherBrowser.login('/api/admin/login', asking.userName, asking.password);
    await colleagueBrowser.login('/api/admin/login', colleague.userName, colleague.password);

    const session = cookieFrom(signedIn, 'postern_admin_session') ?? '';
    const ended = await t.app.inject({
      method: 'DELETE',
      url: '/api/admin/adminsessions',
      headers: { cookie: `${session}; ${asker.device ?? ''}` },
    });
    expect(ended.json()).toEqual({ data: { Ended: 2 } });
    asker.keep(ended);

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
    const known = browser();
    expect((await known.login('/api/admin/login', admin.userName, admin.password)).statusCode).toBe(200);
    await blockUntrusted('/api/admin/login', admin.userName);
    expectThrottled(await browser().login('/api/login', admin.userName, admin.password), 900);
    const onUserForm = await known.login('/api/login', admin.userName, admin.password);
    expect(onUserForm.statusCode).toBe(403);
    expect(onUserForm.json()).toEqual({ Err: ErrorCodes.unauthorised });
  });

  it(
    'remembers a user and an administrator on one browser, and at most five accounts, the oldest dropping out',
    async () => {
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
    },
    MANY_SIGN_INS_MS,
  );

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

  it('drops Secure and the __Host- prefix from the device cookie only in plain-HTTP development mode', async () => {
    const plain = await createTestApp(kind, { config: { insecureHttp: true } });
    try {
      const user = await givenUser(plain.ctx);
      const response = await login(plain, '/api/login', user.userName, user.password, OWNER);
      const device = setCookies(response).find((cookie) => cookie.startsWith('postern_device='));
      expect(device).toContain('HttpOnly');
      expect(device).not.toContain('Secure');
    } finally {
      await plain.close();
    }
  });
});
