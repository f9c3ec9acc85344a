import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { AgentCloseCodes } from '@postern/protocol';
import { bothStores } from './store-kinds.js';
import { useTestApp } from './use-test-app.js';
import { createTestReplica, TEST_CLOCK_START, type TestApp } from './test-app.js';
import { givenAdmin, givenKnoc, givenUser } from './factories.js';
import { givenAgent } from './agent-factories.js';
import { FakeAgent } from './fake-agent.js';
import { givenUserSession } from './sessions.js';
import { recordAudit } from '../audit/audit.js';
import { writeSetting } from '../settings/settings.js';
import { ServerMetrics } from '../metrics/server-metrics.js';
import type { AgentSync } from '../grants/agent-sync.js';

const DAY = 86_400_000;
const A_SECRET = { table: 'users', column: 'totp_secret', rowId: 'u1' };

/** The rows of every table but the migrations' own, by table. */
async function rowCounts(t: { ctx: TestApp['ctx'] }): Promise<Record<string, number>> {
  const { db, dialect } = t.ctx;
  const tables =
    dialect === 'sqlite'
      ? await sql<{
          name: string;
        }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(db)
      : await sql<{
          name: string;
        }>`select tablename as name from pg_tables where schemaname = current_schema()`.execute(db);
  const counts: Record<string, number> = {};
  for (const { name } of tables.rows) {
    if (name.startsWith('postern_migration')) continue;
    const { rows } = await sql<{ count: number | string }>`select count(*) as count from ${sql.id(name)}`.execute(db);
    counts[name] = Number(rows[0]?.count);
  }
  return counts;
}

/*
 * The reset between tests, proven the only way it can be: each `it` below leaves something behind
 * and the next one looks for it. They run in order (vitest runs a file's tests one after another).
 */
describe.each(bothStores())('useTestApp (%s)', (kind) => {
  const t = useTestApp(kind, { listen: true });
  let first: {
    app: TestApp['app'];
    emptyScrape: string;
    agent: FakeAgent;
    agentId: string;
    ended: string[];
    replica: TestApp;
  };

  it('starts on a migrated store whose data tables are all empty, with no sequence to restart', async () => {
    const counts = await rowCounts(t);
    expect(Object.keys(counts).length).toBeGreaterThan(10);
    expect(Object.values(counts).every((count) => count === 0)).toBe(true);
    const sequences =
      kind === 'sqlite'
        ? await sql`select name from sqlite_master where name = 'sqlite_sequence'`.execute(t.ctx.db)
        : await sql`select sequence_name from information_schema.sequences where sequence_schema = current_schema()`.execute(
            t.ctx.db,
          );
    expect(sequences.rows).toEqual([]);
  });

  it('(1) leaves rows, time, counters, a connection, a listener, a replica and changed context behind', async () => {
    const emptyScrape = (await t.ctx.metrics.scrape()).body;
    const user = await givenUser(t.ctx);
    await givenAdmin(t.ctx);
    await givenKnoc(t.ctx);
    await givenUserSession(t, user);
    await writeSetting(t.ctx.db, 'License', 'left behind', t.clock.now());
    await recordAudit(t.ctx.db, t.clock.now(), 'UserLogin', { UserName: user.userName });
    const { id: agentId, token } = await givenAgent(t.ctx);
    const agent = new FakeAgent(t.baseUrl, token);
    await agent.connect();
    expect(t.hub.isConnected(agentId)).toBe(true);
    const ended: string[] = [];
    t.ctx.sessionEvents.onUserSessionsEnded((sessions) => {
      ended.push(...sessions.map((session) => session.sessionId));
    });
    const replica = await createTestReplica(t);
    t.ctx.metrics.signIn('local', 'failure');
    expect(t.ctx.unreadableSecrets.due(A_SECRET, t.clock.now())).toBe(true);
    await t.clockWatch.check();
    t.clock.advance(DAY);
    t.clock.step(-10 * 60_000);
    await t.clockWatch.check();
    // Stepped (and on PostgreSQL also far from the store's real clock).
    expect(t.clockWatch.health()).not.toBe('ok');
    const stub: AgentSync = {
      entriesChanged: () => undefined,
      deliverEntryChanges: () => Promise.resolve(),
      agentsChanged: () => undefined,
      disconnectAgent: () => undefined,
    };
    t.ctx.agentSync = stub;
    t.ctx.config.publicUrl = 'https://left.example.org';
    (t.ctx as unknown as Record<string, unknown>).added = 'by a test';
    writeFileSync(path.join(t.ctx.config.dataDir, 'left-behind.txt'), 'x');
    first = { app: t.app, emptyScrape, agent, agentId, ended, replica };
    expect(Object.values(await rowCounts(t)).some((count) => count > 0)).toBe(true);
  });

  it('(2) finds none of it: empty tables, the clock at its start, zero counters, no connection', async () => {
    expect(t.app).toBe(first.app);
    expect(Object.values(await rowCounts(t)).every((count) => count === 0)).toBe(true);
    expect(t.clock.now()).toBe(TEST_CLOCK_START);
    expect(t.clock.monotonicMs()).toBe(0);
    expect(t.clockWatch.health()).toBe('ok');
    expect(t.clockWatch.offsets()).toEqual([]);
    expect((await t.ctx.metrics.scrape()).body).toBe(first.emptyScrape);
    expect(t.hub.isConnected(first.agentId)).toBe(false);
    expect(t.hub.connectedAgents()).toEqual([]);
    expect(first.agent.closed?.code).toBe(AgentCloseCodes.serverStopping);
  });

  it('(3) has the context, config, reports, listeners, data directory and replicas as built', async () => {
    expect(t.ctx.agentSync).toBe(t.hub);
    expect(t.ctx.config.publicUrl).toBeNull();
    expect('added' in t.ctx).toBe(false);
    expect(t.ctx.unreadableSecrets.due(A_SECRET, t.clock.now())).toBe(true);
    expect(existsSync(path.join(t.ctx.config.dataDir, 'left-behind.txt'))).toBe(false);
    if (kind === 'sqlite') expect(existsSync(path.join(t.ctx.config.dataDir, 'postern.db'))).toBe(true);
    expect(t.replicaSeed.replicas.size).toBe(0);
    await expect(first.replica.ctx.db.selectFrom('users').selectAll().execute()).rejects.toThrow();
    // A session ending now is told to the app's listeners, not to the one the earlier test added.
    const user = await givenUser(t.ctx);
    const cookie = await givenUserSession(t, user);
    const logout = await t.app.inject({ method: 'POST', url: '/api/logout', headers: { cookie } });
    expect(logout.statusCode).toBe(200);
    expect(first.ended).toEqual([]);
  });

  it('(4) serves a fresh ServerMetrics exposition, not only zeroed counters', async () => {
    const fresh = new ServerMetrics();
    fresh.watchStore(t.ctx.db, t.clock, t.ctx.logger);
    fresh.watchAgents(t.hub);
    fresh.watchClock(t.clockWatch);
    expect((await t.ctx.metrics.scrape()).body).toBe((await fresh.scrape()).body);
  });
});

describe('useTestApp with appPerTest (sqlite)', () => {
  const t = useTestApp('sqlite', { appPerTest: true });
  let firstApp: TestApp['app'] | undefined;

  it('(1) builds an app for the test', async () => {
    firstApp = t.app;
    await givenUser(t.ctx);
    t.clock.advance(DAY);
  });

  it('(2) builds another for the next, on the same store emptied, its clock at the start', async () => {
    expect(t.app).not.toBe(firstApp);
    expect(Object.values(await rowCounts(t)).every((count) => count === 0)).toBe(true);
    expect(t.clock.now()).toBe(TEST_CLOCK_START);
  });
});
