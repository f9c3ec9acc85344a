import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCodes } from '@postern/protocol';
import { createTestApp, type TestApp } from '../test-support/test-app.js';
import { bothStores } from '../test-support/store-kinds.js';
import { givenAdmin, givenUser } from '../test-support/factories.js';
import { signInAdmin, signInUser } from '../test-support/http.js';
import type { EndedUserSession } from './session-events.js';
import { sweepOnce } from './session-sweeper.js';

const MINUTE = 60_000;

describe.each(bothStores())('sessions (%s)', (kind) => {
  let t: TestApp;
  let ended: EndedUserSession[];
  beforeEach(async () => {
    t = await createTestApp(kind);
    ended = [];
    t.ctx.sessionEvents.onUserSessionsEnded((sessions) => {
      ended.push(...sessions);
    });
  });
  afterEach(async () => {
    await t.close();
  });

  const status = (cookie: string) => t.app.inject({ method: 'GET', url: '/api/status', headers: { cookie } });
  const as = (cookie: string, method: 'GET' | 'DELETE', url: string) =>
    t.app.inject({ method, url, headers: { cookie } });

  it('announces a logout to the session-ended hook', async () => {
    const user = await givenUser(t.ctx);
    const cookie = await signInUser(t.app, user.userName, user.password);
    await t.app.inject({ method: 'POST', url: '/api/logout', headers: { cookie } });
    expect(ended.map(({ userId, reason }) => ({ userId, reason }))).toEqual([{ userId: user.id, reason: 'logout' }]);
  });

  it('closes expired sessions in the sweeper, at their end time, and announces each once', async () => {
    const user = await givenUser(t.ctx, { durationMinutes: 10 });
    await signInUser(t.app, user.userName, user.password);
    t.clock.advance(11 * MINUTE);
    await Promise.all([sweepOnce(t.ctx), sweepOnce(t.ctx)]);
    await sweepOnce(t.ctx);
    expect(ended.map(({ userId, reason }) => ({ userId, reason }))).toEqual([{ userId: user.id, reason: 'expired' }]);
    const row = await t.ctx.db.selectFrom('userSessions').selectAll().executeTakeFirstOrThrow();
    expect(row.endedAt).toBe(row.endsAt);
  });

  it('ends the oldest sessions when a sign-in goes beyond the user’s session limit', async () => {
    const user = await givenUser(t.ctx, { sessionLimit: 2 });
    const first = await signInUser(t.app, user.userName, user.password);
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
    const admin = await givenAdmin(t.ctx);
    const adminCookie = await signInAdmin(t.app, admin.userName, admin.password);
    const alice = await givenUser(t.ctx);
    const bob = await givenUser(t.ctx);
    const aliceCookie = await signInUser(t.app, alice.userName, alice.password, true);
    const bobCookie = await signInUser(t.app, bob.userName, bob.password);

    const listed = await as(adminCookie, 'GET', `/api/admin/users/${alice.id}/sessions`);
    expect(listed.statusCode).toBe(200);
    const [session] = listed.json<{ data: { ID: string; IPAddress: string; KioskMode: boolean }[] }>().data;
    expect(session).toMatchObject({ IPAddress: '127.0.0.1', KioskMode: true });

    expect((await as(adminCookie, 'DELETE', `/api/admin/sessions/${session?.ID}`)).statusCode).toBe(200);
    expect((await status(aliceCookie)).statusCode).toBe(401);
    expect((await as(adminCookie, 'DELETE', `/api/admin/sessions/${session?.ID}`)).json()).toEqual({
      Err: ErrorCodes.notFound,
      Extra: 'no running session with that ID',
    });

    const all = await as(adminCookie, 'DELETE', '/api/admin/sessions');
    expect(all.json()).toEqual({ data: { Ended: 1 } });
    expect((await status(bobCookie)).statusCode).toBe(401);
    expect(ended.map((e) => e.reason)).toEqual(['invalidated', 'invalidated']);
  });

  it('ends every other admin session but keeps the one asking', async () => {
    const admin = await givenAdmin(t.ctx);
    const other = await givenAdmin(t.ctx);
    const mine = await signInAdmin(t.app, admin.userName, admin.password);
    const theirs = await signInAdmin(t.app, other.userName, other.password);

    const listed = await as(mine, 'GET', `/api/admin/admins/${admin.id}/sessions`);
    expect(listed.json<{ data: { Current: boolean }[] }>().data).toEqual([
      expect.objectContaining({ Current: true, IPAddress: '127.0.0.1' }),
    ]);
    expect((await as(mine, 'DELETE', '/api/admin/adminsessions')).json()).toEqual({ data: { Ended: 1 } });
    expect((await as(theirs, 'GET', '/api/admin/status')).statusCode).toBe(401);
    expect((await as(mine, 'GET', '/api/admin/status')).statusCode).toBe(200);

    const [own] = (await as(mine, 'GET', `/api/admin/admins/${admin.id}/sessions`)).json<{ data: { ID: string }[] }>()
      .data;
    expect((await as(mine, 'DELETE', `/api/admin/adminsessions/${own?.ID}`)).statusCode).toBe(200);
    expect((await as(mine, 'GET', '/api/admin/status')).statusCode).toBe(401);
  });

  it('refuses session management without an admin session', async () => {
    const user = await givenUser(t.ctx);
    const userCookie = await signInUser(t.app, user.userName, user.password);
    for (const url of ['/api/admin/sessions', '/api/admin/adminsessions', '/api/admin/sessions/x']) {
      expect((await as(userCookie, 'DELETE', url)).statusCode).toBe(401);
    }
  });
});
