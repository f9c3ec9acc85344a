import { beforeEach, describe, expect, it } from 'vitest';
import { AUDIT_LOG_CLEAR_AFTER_DAYS, AuditActions, ErrorCodes, type AuditEntry } from '@postern/protocol';
import { bothStores } from '../test-support/store-kinds.js';
import { useTestApp } from '../test-support/use-test-app.js';
import { givenAdmin, givenUser } from '../test-support/factories.js';
import { givenAdminSession, givenUserSession } from '../test-support/sessions.js';
import { adminClient, type AdminClient } from '../test-support/admin-client.js';
import { recordAudit } from './audit.js';

const DAY = 24 * 60 * 60 * 1000;

describe.each(bothStores())('audit log API (%s)', (kind) => {
  const t = useTestApp(kind);
  let ops: { id: string };
  let admin: AdminClient;
  beforeEach(async () => {
    // The session is written into the store: the log starts empty, with no sign-in entry.
    ops = await givenAdmin(t.ctx, { userName: 'ops' });
    admin = adminClient(t.app, await givenAdminSession(t, ops));
  });

  const list = async () => {
    const response = await admin.get<{ data: AuditEntry[] }>('/api/admin/logs');
    expect(response.status, response.response.body).toBe(200);
    return response.body.data;
  };
  const clear = () => admin.delete<{ data: { Deleted: number } }>('/api/admin/logs');
  const at = (offset: number) => new Date(t.clock.now() + offset).toISOString();
  /** After the clock jumped past the session's end: a fresh session. */
  const signInAgain = async () => {
    admin = adminClient(t.app, await givenAdminSession(t, ops));
  };

  it('lists every entry, newest first, in the admin status’s Activity shape', async () => {
    await recordAudit(t.ctx.db, t.clock.now(), AuditActions.UserLogin, { UserName: 'alice', IpAddress: '192.0.2.1' });
    t.clock.advance(1000);
    await recordAudit(t.ctx.db, t.clock.now(), AuditActions.GroupCreated, { AdminName: 'ops', Description: 'Eng' });
    // Two in the same millisecond keep the order they were written in.
    await recordAudit(t.ctx.db, t.clock.now(), AuditActions.GroupDeleted, { AdminName: 'ops', Description: 'Eng' });

    expect(await list()).toEqual([
      { Date: at(0), Entry: { [AuditActions.GroupDeleted]: { AdminName: 'ops', Description: 'Eng' } } },
      { Date: at(0), Entry: { [AuditActions.GroupCreated]: { AdminName: 'ops', Description: 'Eng' } } },
      { Date: at(-1000), Entry: { [AuditActions.UserLogin]: { UserName: 'alice', IpAddress: '192.0.2.1' } } },
    ]);
  });

  it('lists more entries than the status page’s recent activity', async () => {
    for (let i = 0; i < 30; i += 1) {
      await recordAudit(t.ctx.db, t.clock.now(), AuditActions.UserLogin, { UserName: `u${i}` });
      t.clock.advance(1);
    }
    const entries = await list();
    expect(entries).toHaveLength(30);
    expect(entries[0]?.Entry[AuditActions.UserLogin]?.UserName).toBe('u29');
    expect(entries[29]?.Entry[AuditActions.UserLogin]?.UserName).toBe('u0');
  });

  it(`clears the entries older than ${AUDIT_LOG_CLEAR_AFTER_DAYS} days by the clock, then records that it did`, async () => {
    const write = (name: string) => recordAudit(t.ctx.db, t.clock.now(), AuditActions.UserLogin, { UserName: name });
    await write('60 days old');
    t.clock.advance(29 * DAY);
    await write('31 days old');
    t.clock.advance(DAY - 1);
    await write('30 days old, less a millisecond');
    t.clock.advance(1);
    await write('exactly 30 days old');
    t.clock.advance(DAY);
    await write('29 days old');
    t.clock.advance(29 * DAY);
    await write('today');

    await signInAgain();
    const response = await clear();
    expect(response.status, response.response.body).toBe(200);
    expect(response.body).toEqual({ data: { Deleted: 3 } });
    expect(await list()).toEqual([
      { Date: at(0), Entry: { [AuditActions.LogsCleared]: { AdminName: 'ops', Description: '3' } } },
      { Date: at(0), Entry: { [AuditActions.UserLogin]: { UserName: 'today' } } },
      { Date: at(-29 * DAY), Entry: { [AuditActions.UserLogin]: { UserName: '29 days old' } } },
      { Date: at(-30 * DAY), Entry: { [AuditActions.UserLogin]: { UserName: 'exactly 30 days old' } } },
    ]);
  });

  it('clears nothing when nothing is old enough, and still records the attempt', async () => {
    await recordAudit(t.ctx.db, t.clock.now(), AuditActions.UserLogin, { UserName: 'recent' });
    expect((await clear()).body).toEqual({ data: { Deleted: 0 } });
    const entries = await list();
    expect(entries.map((entry) => Object.keys(entry.Entry)[0])).toEqual([
      AuditActions.LogsCleared,
      AuditActions.UserLogin,
    ]);
    expect(entries[0]?.Entry[AuditActions.LogsCleared]?.Description).toBe('0');
  });

  it('keeps its own record when cleared again much later', async () => {
    await clear();
    t.clock.advance(31 * DAY);
    await signInAgain();
    expect((await clear()).body).toEqual({ data: { Deleted: 1 } });
    expect((await list()).map((entry) => entry.Entry[AuditActions.LogsCleared]?.Description)).toEqual(['1']);
  });

  it('shows entries whose stored detail is unreadable with an empty detail instead of failing', async () => {
    await t.ctx.db
      .insertInto('auditLog')
      .values({
        id: '00000000-0000-7000-8000-000000000001',
        createdAt: t.clock.now(),
        action: 'UserLogin',
        detail: '{oops',
      })
      .execute();
    expect(await list()).toEqual([{ Date: at(0), Entry: { UserLogin: {} } }]);
  });

  it.each([
    ['GET', '/api/admin/logs'],
    ['DELETE', '/api/admin/logs'],
  ] as const)('answers %s %s without an admin session with 401 and changes nothing', async (method, url) => {
    await recordAudit(t.ctx.db, t.clock.now() - 40 * DAY, AuditActions.UserLogin, { UserName: 'old' });
    const user = await givenUser(t.ctx);
    const userCookie = await givenUserSession(t, user);
    for (const headers of [{}, { cookie: '__Host-postern_admin_session=forged' }, { cookie: userCookie }]) {
      const response = await t.app.inject({ method, url, headers });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ Err: ErrorCodes.invalidSession });
    }
    const old = await t.ctx.db
      .selectFrom('auditLog')
      .select('id')
      .where('createdAt', '<', t.clock.now() - 30 * DAY)
      .execute();
    expect(old).toHaveLength(1);
  });
});
