import { beforeEach, describe, expect, it } from 'vitest';
import {
  AUDIT_LOG_CLEAR_AFTER_DAYS,
  AuditActions,
  ErrorCodes,
  type AuditAction,
  type AuditDetail,
  type AuditEntry,
} from '@postern/protocol';
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

  it('lists every entry, newest first, in the admin status’s Activity shape, with its actor and target', async () => {
    await recordAudit(t.ctx.db, t.clock.now(), AuditActions.UserLogin, { UserName: 'alice', IpAddress: '192.0.2.1' });
    t.clock.advance(1000);
    await recordAudit(t.ctx.db, t.clock.now(), AuditActions.GroupCreated, { AdminName: 'ops', Description: 'Eng' });
    // Two in the same millisecond keep the order they were written in.
    await recordAudit(t.ctx.db, t.clock.now(), AuditActions.GroupDeleted, { AdminName: 'ops', Description: 'Eng' });

    expect(await list()).toEqual([
      {
        Date: at(0),
        Entry: { [AuditActions.GroupDeleted]: { AdminName: 'ops', Description: 'Eng' } },
        Actor: 'ops',
        Target: 'Eng',
      },
      {
        Date: at(0),
        Entry: { [AuditActions.GroupCreated]: { AdminName: 'ops', Description: 'Eng' } },
        Actor: 'ops',
        Target: 'Eng',
      },
      {
        Date: at(-1000),
        Entry: { [AuditActions.UserLogin]: { UserName: 'alice', IpAddress: '192.0.2.1' } },
        Actor: 'alice',
      },
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
      { Date: at(0), Entry: { [AuditActions.LogsCleared]: { AdminName: 'ops', Description: '3' } }, Actor: 'ops' },
      { Date: at(0), Entry: { [AuditActions.UserLogin]: { UserName: 'today' } }, Actor: 'today' },
      { Date: at(-29 * DAY), Entry: { [AuditActions.UserLogin]: { UserName: '29 days old' } }, Actor: '29 days old' },
      {
        Date: at(-30 * DAY),
        Entry: { [AuditActions.UserLogin]: { UserName: 'exactly 30 days old' } },
        Actor: 'exactly 30 days old',
      },
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

  describe('filters', () => {
    /** A day of activity: ops creates ada and bob, ada signs in and opens a knoc, bob signs in. */
    beforeEach(async () => {
      const write = async (action: AuditAction, detail: AuditDetail) => {
        await recordAudit(t.ctx.db, t.clock.now(), action, detail);
        t.clock.advance(60_000);
      };
      await write(AuditActions.UserCreated, { AdminName: 'ops', UserName: 'ada' });
      await write(AuditActions.UserCreated, { AdminName: 'ops', UserName: 'bob' });
      await write(AuditActions.UserLogin, { UserName: 'ada', IpAddress: '192.0.2.1' });
      await write(AuditActions.ClickToGrant, { UserName: 'ada', AclDescription: 'Billing 100%_db' });
      await write(AuditActions.UserLogin, { UserName: 'Bob', IpAddress: '192.0.2.2' });
    });
    const listed = async (query: string) => {
      const response = await admin.get<{ data: AuditEntry[] }>(`/api/admin/logs?${query}`);
      expect(response.status, response.response.body).toBe(200);
      return response.body.data.map(
        (entry) => `${Object.keys(entry.Entry)[0]} ${entry.Actor ?? '-'} ${entry.Target ?? '-'}`,
      );
    };
    /** The instant `minutes` after the first entry. */
    const minute = (minutes: number) => new Date(t.clock.now() - 5 * 60_000 + minutes * 60_000).toISOString();

    it('keeps who acted apart from whom it was done to', async () => {
      expect(await listed('')).toEqual([
        'UserLogin Bob -',
        'ClickToGrant ada Billing 100%_db',
        'UserLogin ada -',
        'UserCreated ops bob',
        'UserCreated ops ada',
      ]);
    });

    it.each([
      ['action=UserLogin', ['UserLogin Bob -', 'UserLogin ada -']],
      ['actor=ada', ['ClickToGrant ada Billing 100%_db', 'UserLogin ada -']],
      // Contained, ignoring case: "bob" finds Bob's sign-in as the actor, not ops's creating bob.
      ['actor=BO', ['UserLogin Bob -']],
      ['target=bob', ['UserCreated ops bob']],
      ['actor=ops&target=ada', ['UserCreated ops ada']],
      // % and _ are letters here, not wildcards.
      ['target=100%25_', ['ClickToGrant ada Billing 100%_db']],
      ['target=1000%25', []],
      ['target=_db', ['ClickToGrant ada Billing 100%_db']],
      ['target=g_1', []],
    ])('selects with %s', async (query, expected) => {
      expect(await listed(query)).toEqual(expected);
    });

    it('selects a time range, from inclusive to exclusive, in any offset', async () => {
      expect(await listed(`from=${minute(1)}&to=${minute(3)}`)).toEqual(['UserLogin ada -', 'UserCreated ops bob']);
      expect(await listed(`from=${minute(4)}`)).toEqual(['UserLogin Bob -']);
      expect(await listed(`to=${minute(1)}`)).toEqual(['UserCreated ops ada']);
      // Minute 3 written as Berlin's summer time: the same instant two hours later on the clock face.
      const berlin = new Date(Date.parse(minute(3)) + 2 * 60 * 60_000).toISOString().replace('Z', '+02:00');
      expect(await listed(`action=UserLogin&to=${encodeURIComponent(berlin)}`)).toEqual(['UserLogin ada -']);
    });

    it.each([
      ['action=NoSuchAction', 'action: '],
      ['actor=', 'actor: '],
      ['actor=%20%20', 'actor: '],
      [`target=${'x'.repeat(201)}`, 'target: '],
      ['from=yesterday', 'from: '],
      ['to=2026-11-24', 'to: '],
      ['from=2026-11-24T10:00:00Z&to=2026-11-24T10:00:00Z', 'to: must be after from'],
      ['from=2026-11-24T11:00:00Z&to=2026-11-24T10:00:00Z', 'to: must be after from'],
    ])('refuses %s with 400 naming the parameter', async (query, extra) => {
      const response = await admin.get(`/api/admin/logs?${query}`);
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ Err: ErrorCodes.badRequest, Extra: expect.stringContaining(extra) as string });
    });
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
