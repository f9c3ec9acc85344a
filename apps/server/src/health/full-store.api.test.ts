import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ErrorCodes } from '@postern/protocol';
import type { TestApp, TestStoreKind } from '../test-support/test-app.js';
import { useTestApp } from '../test-support/use-test-app.js';
import { bothStores } from '../test-support/store-kinds.js';
import { givenAdminSession } from '../test-support/sessions.js';
import { adminClient, type AdminClient } from '../test-support/admin-client.js';
import { recentAudit } from '../audit/audit.js';

/**
 * A store with no room for writes, made for real inside the store: SQLite refuses to grow the
 * database past max_page_count with SQLITE_FULL (what a full disk gives); on PostgreSQL a trigger
 * raises disk_full (53100) from the server itself. The tmpfs system test fills a real disk.
 */
const fullStore: Record<TestStoreKind, { fill(t: TestApp): Promise<void>; free(t: TestApp): Promise<void> }> = {
  sqlite: {
    // Run on the writer: with nothing else in flight the store sends even reads there.
    fill: async (t) => {
      const pages = await sql<{ pageCount: number }>`pragma page_count`.execute(t.ctx.db);
      await sql.raw(`pragma max_page_count = ${pages.rows[0]?.pageCount ?? 1}`).execute(t.ctx.db);
    },
    free: async (t) => {
      await sql`pragma max_page_count = 1073741823`.execute(t.ctx.db);
    },
  },
  postgres: {
    fill: async (t) => {
      await sql`
        create function postern_test_disk_full() returns trigger language plpgsql as $$
        begin
          raise exception 'could not extend file: No space left on device' using errcode = 'disk_full';
        end $$`.execute(t.ctx.db);
      for (const table of ['groups', 'write_probes']) {
        await sql`create trigger disk_full before insert or update on ${sql.table(table)}
          for each row execute function postern_test_disk_full()`.execute(t.ctx.db);
      }
    },
    free: async (t) => {
      await sql`drop function postern_test_disk_full() cascade`.execute(t.ctx.db);
    },
  },
};

describe.each(bothStores())('a store with no room for writes (%s)', (kind) => {
  const t = useTestApp(kind);
  let admin: AdminClient;
  beforeEach(async () => {
    admin = adminClient(t.app, await givenAdminSession(t));
  });
  // Before the store is emptied for the next test: the room comes back even when a test failed.
  afterEach(async () => {
    await fullStore[kind].free(t).catch(() => undefined);
  });

  /** Creates groups with long descriptions until the store refuses one; returns the names it took. */
  async function writeUntilRefused(): Promise<{
    taken: string[];
    refused: { status: number; headers: object; body: unknown; name: string };
  }> {
    const taken: string[] = [];
    for (let i = 0; i < 500; i += 1) {
      const name = `group-${i}`;
      const answer = await admin.post('/api/admin/groups', {
        Name: name,
        Type: 'local',
        Description: 'd'.repeat(1000),
      });
      if (answer.status !== 200) return { taken, refused: { ...answer, name } };
      taken.push(name);
    }
    throw new Error('the store never refused a write');
  }

  it('answers a write 503 with Retry-After, is not ready while writes fail, and turns ready and writable again by itself once room is made', async () => {
    await fullStore[kind].fill(t);
    const { taken, refused } = await writeUntilRefused();

    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({ Err: ErrorCodes.storeUnavailable });
    expect(refused.headers).toMatchObject({ 'retry-after': '5' });
    expect(t.ctx.writeHealth.failing).toBe(true);
    // Reads still work, and liveness does not depend on the store at all.
    expect((await admin.get('/api/admin/groups')).status).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    const notReady = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(notReady.statusCode).toBe(503);
    expect(notReady.json()).toEqual({ Err: ErrorCodes.storeUnavailable, Extra: 'store writes failing' });
    // Asked again, it probes again, and is still not ready.
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);

    await fullStore[kind].free(t);
    // Ready without any request having written: readiness's own probe found room again.
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode, ready.body).toBe(200);
    expect(t.ctx.writeHealth.failing).toBe(false);
    expect(await t.ctx.db.selectFrom('writeProbes').selectAll().execute()).toEqual([]);
    const retried = await admin.post('/api/admin/groups', { Name: refused.name, Type: 'local' });
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);

    // Nothing lost and nothing half-applied: every write that was answered 200 is there, the refused
    // one only from its retry, each with its one audit entry.
    const names = await t.ctx.db.selectFrom('groups').select('name').orderBy('name').execute();
    expect(names.map((row) => row.name)).toEqual([...taken, refused.name].sort());
    const audit = await recentAudit(t.ctx.db, 1000);
    const created = audit.filter((entry) => JSON.stringify(entry.Entry).includes('"group-'));
    expect(created).toHaveLength(taken.length + 1);
  });

  it('is ready again once a request writes, without waiting for a probe', async () => {
    await fullStore[kind].fill(t);
    await writeUntilRefused();
    expect(t.ctx.writeHealth.failing).toBe(true);

    await fullStore[kind].free(t);
    expect((await admin.post('/api/admin/groups', { Name: 'after', Type: 'local' })).status).toBe(200);

    expect(t.ctx.writeHealth.failing).toBe(false);
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  });
});
