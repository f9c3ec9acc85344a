import { describe, expect, it } from 'vitest';
import { useTestApp } from './use-test-app.js';
import { givenAdmin, givenUser, PASSWORD_TEST_TIMEOUT_MS } from './factories.js';
import { cookieFrom, signInAdmin, signInUser } from './http.js';
import { givenAdminSession, givenUserSession } from './sessions.js';
import { adminClient } from './admin-client.js';
import { hashSessionToken } from '../sessions/session-tokens.js';
import { writeSetting } from '../settings/settings.js';

const DAY = 86_400_000;

/** The cookie's name and the row its token names, without what differs between any two sessions. */
async function sessionOf(
  t: { ctx: { db: ReturnType<typeof useTestApp>['ctx']['db'] } },
  table: 'adminSessions' | 'userSessions',
  cookie: string,
) {
  const [name = '', token = ''] = cookie.split('=');
  const row = await t.ctx.db
    .selectFrom(table)
    .selectAll()
    .where('tokenHash', '=', hashSessionToken(token))
    .executeTakeFirstOrThrow();
  const { id: _id, tokenHash: _tokenHash, ...rest } = row;
  return { name, row: rest };
}

// The sessions are compared with the ones real sign-ins write (argon2id).
describe(
  'sessions written into the store, against real sign-ins (sqlite)',
  { timeout: PASSWORD_TEST_TIMEOUT_MS },
  () => {
    const t = useTestApp('sqlite');

    it('gives an admin the row and cookie signInAdmin gives, and the cookie opens the admin API', async () => {
      const admin = await givenAdmin(t.ctx, { userName: 'ops' });
      const signedIn = await signInAdmin(t.app, 'ops', admin.password);
      const given = await givenAdminSession(t, admin);
      expect(await sessionOf(t, 'adminSessions', given)).toEqual(await sessionOf(t, 'adminSessions', signedIn));
      expect((await adminClient(t.app, given).get('/api/admin/status')).status).toBe(200);
    });

    it('gives an admin waiting for a second factor the row a TOTP admin’s sign-in writes', async () => {
      const admin = await givenAdmin(t.ctx, { userName: 'guarded', totpEnabled: true });
      const login = await t.app.inject({
        method: 'POST',
        url: '/api/admin/login',
        payload: { UserName: 'guarded', Password: admin.password },
      });
      const pending = cookieFrom(login, 'postern_admin_session') ?? '';
      const { row } = await sessionOf(t, 'adminSessions', pending);
      const given = await givenAdminSession(t, admin, { stage: row.stage });
      expect(await sessionOf(t, 'adminSessions', given)).toEqual(await sessionOf(t, 'adminSessions', pending));
      expect((await adminClient(t.app, given).get('/api/admin/status')).status).toBe(401);
    });

    it('gives a user the row and cookie signInUser gives, ending at their Duration, and the cookie opens the API', async () => {
      const user = await givenUser(t.ctx, { userName: 'alice', durationMinutes: 90 });
      const signedIn = await signInUser(t.app, 'alice', user.password);
      const given = await givenUserSession(t, user);
      const expected = await sessionOf(t, 'userSessions', signedIn);
      expect(await sessionOf(t, 'userSessions', given)).toEqual(expected);
      expect(expected.row.endsAt).toBe(t.clock.now() + 90 * 60_000);
      const status = await t.app.inject({ method: 'GET', url: '/api/status', headers: { cookie: given } });
      expect(status.statusCode).toBe(200);
    });

    it('ends a user’s session at their ValidUntil, and a kiosk session after the kiosk setting, as sign-ins do', async () => {
      const leaving = await givenUser(t.ctx, { userName: 'leaving', validUntil: t.clock.now() + 60_000 });
      expect(await sessionOf(t, 'userSessions', await givenUserSession(t, leaving))).toEqual(
        await sessionOf(t, 'userSessions', await signInUser(t.app, 'leaving', leaving.password)),
      );
      await writeSetting(t.ctx.db, 'KioskSessionDuration', 7, t.clock.now());
      const kiosk = await givenUser(t.ctx, { userName: 'kiosk', durationMinutes: DAY / 60_000 });
      const given = await sessionOf(t, 'userSessions', await givenUserSession(t, kiosk, { kiosk: true }));
      expect(given).toEqual(await sessionOf(t, 'userSessions', await signInUser(t.app, 'kiosk', kiosk.password, true)));
      expect(given.row).toMatchObject({ kiosk: 1, endsAt: t.clock.now() + 7 * 60_000 });
    });
  },
);
