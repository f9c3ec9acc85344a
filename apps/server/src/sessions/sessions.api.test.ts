import { beforeEach, describe, expect, it } from 'vitest';
import { ErrorCodes } from '@postern/protocol';
import { useTestApp } from '../test-support/use-test-app.js';
import { bothStores } from '../test-support/store-kinds.js';
import { givenAdmin, givenUser, PASSWORD_TEST_TIMEOUT_MS } from '../test-support/factories.js';
import { signInUser } from '../test-support/http.js';
import { givenAdminSession, givenUserSession } from '../test-support/sessions.js';
import { adminClient } from '../test-support/admin-client.js';
import type { EndedUserSession } from './session-events.js';
import { sweepOnce } from './session-sweeper.js';

const MINUTE = 60_000;

// The sessions feature's smoke file. Only the session-limit test signs in for real (argon2id): the
// limit is what a sign-in enforces.
describe.each(bothStores())('sessions (%s)', { timeout: PASSWORD_TEST_TIMEOUT_MS }, (kind) => {
  const t = useTestApp(kind);
  let ended: EndedUserSession[];
  beforeEach(() => {
    ended = [];
    t.ctx.sessionEvents.onUserSessionsEnded((sessions) => {
      ended.push(...sessions);
    });
  });

  const status = (cookie: string) => t.app.inject({ method: 'GET', url: '/api/status', headers: { cookie } });

  it('announces a logout to the session-ended hook', async () => {
    const user = await givenUser(t.ctx);
    const cookie = await givenUserSession(t, user);
    await t.app.inject({ method: 'POST', url: '/api/logout', headers: { cookie } });
    expect(ended.map(({ userId, reason }) => ({ userId, reason }))).toEqual([{ userId: user.id, reason: 'logout' }]);
  });

  it('closes expired sessions in the sweeper, at their end time, and announces each once', async () => {
    const user = await givenUser(t.ctx, { durationMinutes: 10 });
    await givenUserSession(t, user);
    t.clock.advance(11 * MINUTE);
    await Promise.all([sweepOnce(t.ctx), sweepOnce(t.ctx)]);
    await sweepOnce(t.ctx);
    expect(ended.map(({ userId, reason }) => ({ userId, reason }))).toEqual([{ userId: user.id, reason: 'expired' }]);
    const row = await t.ctx.db.selectFrom('userSessions').selectAll().executeTakeFirstOrThrow();
    expect(row.endedAt).toBe(row.endsAt);
  });

  it('ends the oldest sessions when a sign-in goes beyond the user’s session limit', async () => {
    const user = await givenUser(t.ctx, { sessionLimit: 2 });
    const first = await givenUserSession(t, user);
    t.clock.advance(1000);
    const second = await signInUser(t.app, user.userName, user.password);
    t.clock.advance(1000);
    const third = await signInUser(t.app, user.userName, user.password);

    expect((await status(first)).statusCode).toBe(401);
    expect((await status(second)).statusCode).toBe(200);
    expect((await status(third)).statusCode).toBe(200);
    expect(ended.map((session) => session.reason)).toEqual(['session-limit']);
  });

  it('lets admins list a user’s sessions and end one or all of them', async () => {
    const admin = adminClient(t.app, await givenAdminSession(t));
    const alice = await givenUser(t.ctx);
    const aliceCookie = await givenUserSession(t, alice, { kiosk: true });
    const bobCookie = await givenUserSession(t);

    const listed = await admin.get<{ data: { ID: string; IPAddress: string; KioskMode: boolean }[] }>(
      `/api/admin/users/${alice.id}/sessions`,
    );
    expect(listed.status).toBe(200);
    const [session] = listed.body.data;
    expect(session).toMatchObject({ IPAddress: '127.0.0.1', KioskMode: true });

    expect((await admin.delete(`/api/admin/sessions/${session?.ID}`)).status).toBe(200);
    expect((await status(aliceCookie)).statusCode).toBe(401);
    expect((await admin.delete(`/api/admin/sessions/${session?.ID}`)).body).toEqual({
      Err: ErrorCodes.notFound,
      Extra: 'no running session with that ID',
    });

    const all = await admin.delete('/api/admin/sessions');
    expect(all.body).toEqual({ data: { Ended: 1 } });
    expect((await status(bobCookie)).statusCode).toBe(401);
    expect(ended.map((e) => e.reason)).toEqual(['invalidated', 'invalidated']);
  });

  it('ends every other admin session but keeps the one asking', async () => {
    const admin = await givenAdmin(t.ctx);
    const mine = adminClient(t.app, await givenAdminSession(t, admin));
    const theirs = adminClient(t.app, await givenAdminSession(t));

    const listed = await mine.get<{ data: { Current: boolean }[] }>(`/api/admin/admins/${admin.id}/sessions`);
    expect(listed.body.data).toEqual([expect.objectContaining({ Current: true, IPAddress: '127.0.0.1' })]);
    expect((await mine.delete('/api/admin/adminsessions')).body).toEqual({ data: { Ended: 1 } });
    expect((await theirs.get('/api/admin/status')).status).toBe(401);
    expect((await mine.get('/api/admin/status')).status).toBe(200);

    const [own] = (await mine.get<{ data: { ID: string }[] }>(`/api/admin/admins/${admin.id}/sessions`)).body.data;
    expect((await mine.delete(`/api/admin/adminsessions/${own?.ID}`)).status).toBe(200);
    expect((await mine.get('/api/admin/status')).status).toBe(401);
  });

  it('refuses session management without an admin session', async () => {
    const asUser = adminClient(t.app, await givenUserSession(t));
    for (const url of ['/api/admin/sessions', '/api/admin/adminsessions', '/api/admin/sessions/x']) {
      expect((await asUser.delete(url)).status).toBe(401);
    }
  });
});
