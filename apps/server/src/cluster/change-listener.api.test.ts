import type pg from 'pg';
import pino from 'pino';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GrantStatus } from '@postern/protocol';
import { waitFor } from '@postern/test-support';
import { useTestApp } from '../test-support/use-test-app.js';
import { bothStores } from '../test-support/store-kinds.js';
import { givenAgent } from '../test-support/agent-factories.js';
import { givenBackend, givenEnforcedKnoc } from '../test-support/knoc-factories.js';
import { openStore, type Store } from '../store/store.js';
import { uuidv7 } from '../lib/ids.js';
import type { AgentEntryKey } from '../grants/agent-sync.js';
import { ChangeListener, type LocalAgents } from './change-listener.js';

/** What the listening server's agents were told, in order. */
class RecordingAgents implements LocalAgents {
  readonly calls: string[] = [];
  entriesChanged(keys: readonly AgentEntryKey[]): void {
    for (const key of keys) this.calls.push(`entries ${key.agentId} ${key.aclId} ${key.ip}`);
  }
  agentsChanged(agentIds: readonly string[]): void {
    for (const id of agentIds) this.calls.push(`state ${id}`);
  }
  disconnectAgent(agentId: string, reason: string): void {
    this.calls.push(`disconnect ${agentId} ${reason}`);
  }
  connectedElsewhere(agentId: string): void {
    this.calls.push(`elsewhere ${agentId}`);
  }
  resendAll(): void {
    this.calls.push('resend all');
  }
  has(call: string): boolean {
    return this.calls.includes(call);
  }
}

/**
 * Two servers on one PostgreSQL: server A (a test app) writes, server B (a second store on the same
 * schema, with its change listener) hears of each change through the store's doorbells and tells
 * the agents connected to it, reading the rest from the store.
 */
describe.skipIf(!bothStores().includes('postgres'))('change notifications between servers', () => {
  // One app (server A) and one second store (server B) for the file; each case starts its own listener.
  const t = useTestApp('postgres');
  let serverB: Store;
  let listener: ChangeListener | undefined;
  let agents: RecordingAgents;
  let agentId: string;
  let aclId: string;
  /** The listener's own connections, as opened, so a test can interfere with one. */
  let clients: pg.Client[];

  const startListener = async (options: { pingEveryMs?: number; pingTimeoutMs?: number } = {}) => {
    listener = new ChangeListener({
      db: serverB.db,
      logger: pino({ level: 'silent' }),
      replicaId: serverB.replicaId,
      openClient: () => {
        const client = serverB.openDedicatedClient?.();
        if (client === undefined) throw new Error('no dedicated client on PostgreSQL');
        clients.push(client);
        return client;
      },
      agents,
      ...options,
    });
    await listener.start();
  };
  /** A grant of `ip` on the knoc, written through `db` (server A unless said otherwise). */
  const grant = (ip: string, db = t.ctx.db) => {
    const now = t.clock.now();
    return db
      .insertInto('grants')
      .values({
        id: uuidv7(now),
        aclId,
        sessionId: null,
        userId: null,
        userName: 'grace',
        ip,
        origin: 'admin',
        status: GrantStatus.Pending,
        createdAt: now,
        updatedAt: now,
        expiresAt: now + 3_600_000,
      })
      .execute();
  };
  const heardGrant = (ip: string) => agents.has(`entries ${agentId} ${aclId} ${ip}`);

  beforeAll(async () => {
    const schema = (await sql<{ schema: string }>`select current_schema() as schema`.execute(t.ctx.db)).rows[0]?.schema;
    serverB = await openStore(
      { kind: 'postgres', url: process.env.POSTERN_TEST_DATABASE_URL ?? '' },
      { postgresSchema: schema ?? 'public' },
    );
  });
  afterAll(async () => {
    await serverB.close();
  });

  beforeEach(async () => {
    agents = new RecordingAgents();
    clients = [];
    agentId = (await givenAgent(t.ctx, { name: 'edge' })).id;
    const backend = await givenBackend(t.ctx, { agentId, type: 'ipset' });
    aclId = (await givenEnforcedKnoc(t.ctx, { backendId: backend.id, type: 'ipset', aclConfig: { V4SetName: 'p4' } }))
      .id;
  });
  afterEach(async () => {
    await listener?.stop();
    listener = undefined;
  });

  it('tells the agents here of a grant and its end committed on another server, naming the agent from the store', async () => {
    await startListener();
    await grant('192.0.2.10');
    await waitFor(() => heardGrant('192.0.2.10'), 'the grant made on server A', 5_000);

    agents.calls.length = 0;
    await t.ctx.db
      .updateTable('grants')
      .set({ endedAt: t.clock.now(), status: GrantStatus.Revoking })
      .where('ip', '=', '192.0.2.10')
      .execute();
    await waitFor(() => heardGrant('192.0.2.10'), 'the end of the grant', 5_000);
  });

  it('rings nothing for a rolled-back write, nor for a status change the agent need not hear of', async () => {
    await startListener();
    await t.ctx.db
      .transaction()
      .execute(async (trx) => {
        await grant('192.0.2.20', trx);
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    await t.ctx.db.updateTable('grants').set({ status: GrantStatus.GrantError }).execute();
    // Notifications arrive in commit order: once this one is heard, the others would have been.
    await grant('192.0.2.21');
    await waitFor(() => heardGrant('192.0.2.21'), 'the committed grant', 5_000);
    expect(agents.calls).toEqual([`entries ${agentId} ${aclId} 192.0.2.21`]);
  });

  it("skips the listening server's own changes: they reached its agents when they were made", async () => {
    await startListener();
    await grant('192.0.2.30', serverB.db);
    await grant('192.0.2.31');
    await waitFor(() => heardGrant('192.0.2.31'), "server A's grant", 5_000);
    expect(heardGrant('192.0.2.30')).toBe(false);
  });

  it('resends an agent its state when its knoc changes, and closes it when its token is rotated', async () => {
    await startListener();
    await t.ctx.db.updateTable('knocs').set({ description: 'renamed', updatedAt: t.clock.now() }).execute();
    await waitFor(() => agents.has(`state ${agentId}`), 'the knoc change', 5_000);

    await t.ctx.db.updateTable('agents').set({ connectionId: 'connection-on-a' }).where('id', '=', agentId).execute();
    await waitFor(() => agents.has(`elsewhere ${agentId}`), 'the connection admitted on server A', 5_000);

    await t.ctx.db.updateTable('agents').set({ tokenHash: 'rotated' }).where('id', '=', agentId).execute();
    await waitFor(() => agents.has(`disconnect ${agentId} token rotated`), 'the token rotation', 5_000);
  });

  it('listens again after its connection is killed, resending every agent its state', async () => {
    await startListener();
    await sql`select pg_terminate_backend(pid) from pg_stat_activity
              where application_name = ${serverB.replicaId} and query ilike 'listen %'`.execute(t.ctx.db);
    await waitFor(() => agents.has('resend all'), 'the resync after reconnecting', 10_000);
    await grant('192.0.2.40');
    await waitFor(() => heardGrant('192.0.2.40'), 'a grant after reconnecting', 5_000);
  });

  it('replaces a connection that silently stopped delivering, found by its own doorbell', async () => {
    await startListener({ pingEveryMs: 100, pingTimeoutMs: 300 });
    // Still connected, but deaf: nothing reports an error.
    await clients[0]?.query('unlisten *');
    await waitFor(() => agents.has('resend all'), 'the resync after the silent stop', 10_000);
    await grant('192.0.2.50');
    await waitFor(() => heardGrant('192.0.2.50'), 'a grant after the replacement', 5_000);
  });
});
