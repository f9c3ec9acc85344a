import { beforeEach, describe, expect, it } from 'vitest';
import { ErrorCodes, USER_SESSION_MINUTES_MAX, type UserSessionInfo } from '@postern/protocol';
import { bothStores } from '../test-support/store-kinds.js';
import { useTestApp } from '../test-support/use-test-app.js';
import { givenAdmin, givenUser, PASSWORD_TEST_TIMEOUT_MS } from '../test-support/factories.js';
import { givenAdminSession } from '../test-support/sessions.js';
import { adminClient, type AdminClient } from '../test-support/admin-client.js';
import { basicAuth, givenApiKey } from '../test-support/v1-rows.js';

const YEAR_MS = USER_SESSION_MINUTES_MAX * 60_000;
/** The largest value the users table's integer column holds in PostgreSQL; SQLite holds more. */
const INT4_MAX = 2 ** 31 - 1;

// On both stores: what the users table's integer column holds differs (see INT4_MAX). The tests
// create users with passwords and sign them in (argon2id).
describe.each(bothStores())(
  'a user’s session Duration is bounded (%s)',
  { timeout: PASSWORD_TEST_TIMEOUT_MS },
  (kind) => {
    const t = useTestApp(kind);
    let admin: AdminClient;
    beforeEach(async () => {
      admin = adminClient(t.app, await givenAdminSession(t, await givenAdmin(t.ctx, { userName: 'duration-admin' })));
    });

    const localUser = (Duration: number) => ({
      Name: 'Grace Hopper',
      UserName: 'grace',
      AuthType: 'local',
      PlainPassword: 'a long passphrase',
      ConfirmPassword: 'a long passphrase',
      Duration,
    });

    it.each([
      ['10^12 minutes', 10 ** 12],
      ['2^31 minutes', 2 ** 31],
      ['one minute more than a year', USER_SESSION_MINUTES_MAX + 1],
      ['zero minutes', 0],
    ])('refuses %s on create and on update, naming Duration', async (_case, Duration) => {
      const created = await admin.post('/api/admin/users', localUser(Duration));
      expect(created.status).toBe(400);
      expect(created.body).toEqual({ Err: ErrorCodes.userDurationRange, Extra: 'Duration' });

      const user = await givenUser(t.ctx, { userName: 'existing' });
      const updated = await admin.put(`/api/admin/users/${user.id}`, {
        ID: user.id,
        Name: 'Existing',
        UserName: 'existing',
        AuthType: 'local',
        Duration,
      });
      expect(updated.status).toBe(400);
      expect(updated.body).toEqual({ Err: ErrorCodes.userDurationRange, Extra: 'Duration' });
      expect(await t.ctx.db.selectFrom('users').select('userName').execute()).not.toContainEqual({ userName: 'grace' });
    });

    it('accepts a year, and a session of that user ends a year after signing in', async () => {
      expect((await admin.post('/api/admin/users', localUser(USER_SESSION_MINUTES_MAX))).status).toBe(200);
      const signedIn = await t.app.inject({
        method: 'POST',
        url: '/api/login',
        payload: { UserName: 'grace', Password: 'a long passphrase' },
      });
      expect(signedIn.statusCode).toBe(200);
      expect(signedIn.json<{ data: UserSessionInfo }>().data.Ends).toBe(
        new Date(t.clock.now() + YEAR_MS).toISOString(),
      );
    });

    it.each([
      // SQLite stores any integer; PostgreSQL's column stops at 2^31 - 1.
      ...(kind === 'sqlite' ? [['10^12 minutes', 10 ** 12] as const] : []),
      ['2^31 - 1 minutes', INT4_MAX] as const,
    ])(
      'signs in a user whose stored Duration is %s, for a year, and both session lists answer',
      async (_case, durationMinutes) => {
        const user = await givenUser(t.ctx, { userName: 'legacy', durationMinutes });
        const signedIn = await t.app.inject({
          method: 'POST',
          url: '/api/login',
          payload: { UserName: 'legacy', Password: user.password },
        });
        expect(signedIn.statusCode, signedIn.body).toBe(200);
        const ends = new Date(t.clock.now() + YEAR_MS).toISOString();
        expect(signedIn.json<{ data: UserSessionInfo }>().data.Ends).toBe(ends);
        const rows = await t.ctx.db.selectFrom('userSessions').select('endsAt').where('userId', '=', user.id).execute();
        expect(rows).toEqual([{ endsAt: t.clock.now() + YEAR_MS }]);

        const adminList = await admin.get(`/api/admin/users/${user.id}/sessions`);
        expect(adminList.status, adminList.response.body).toBe(200);
        expect(adminList.body).toMatchObject({ data: [{ Ends: ends }] });

        const key = await givenApiKey(t.ctx, ['user.sessions']);
        const v1List = await t.app.inject({
          method: 'GET',
          url: '/api/v1/user_sessions',
          headers: { authorization: basicAuth('apiuser', key.plaintext) },
        });
        expect(v1List.statusCode, v1List.body).toBe(200);
        expect(v1List.json()).toMatchObject({ data: [{ UserName: 'legacy', Ends: ends }] });
      },
    );
  },
);
