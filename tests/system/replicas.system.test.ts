import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, waitFor, type RunningProcess } from '@postern/test-support';
import { AdminApi } from './support/admin-api.js';
import { missingStore } from './support/admin-flow.js';
import {
  CLIENT_ADDRESSES,
  SET_NAME,
  createGrantTopology,
  startTopologyAgent,
  stopAgent,
  type GrantTopology,
} from './support/grant-topology.js';
import { missingNetnsSupport } from './support/netns.js';
import { createPostgresSchema, spawnPosternServer, type PosternServer } from './support/postern-server.js';
import { endSessionsSoon } from './support/session-end.js';
import { missingBuild, requireTool } from './support/requirements.js';
import { PORTAL_SETTINGS, installLicence } from './support/user-portal.js';

/**
 * Issue 17's replicas on real processes: two built servers (A and B) on one PostgreSQL schema, and
 * the built agent in a network namespace driving a real ipset, reaching "the server" through a
 * relay that stands for a load balancer (new connections go to whichever server it names now).
 * A grant made through A opens the port on the agent connected to B; sessions, sign-in throttling
 * and logout act across both; changes made while the servers' notification connections are cut
 * still reach the agent; when B dies the agent moves to A and nothing is lost; when the sweepers'
 * lease holder dies, the other server ends an expired grant on time.
 */

const [ALICE_IP, BOB_IP] = CLIENT_ADDRESSES;
const PASSWORD = 'correct horse battery staple';
const missing =
  missingNetnsSupport({ ipset: 'ipset', iptables: 'iptables', haproxy: 'haproxy' }) ??
  missingBuild(REPO_ROOT) ??
  missingStore('postgres');

/** A server of the pair: its process, URL and port. */
interface Replica {
  name: string;
  url: string;
  port: number;
  process: RunningProcess;
  dataDir: string;
}

/** A user's session as a browser behind a trusted proxy holds it: the cookie and the address. */
interface UserSession {
  cookie: string;
  address: string;
}

async function signIn(replica: Replica, userName: string, address: string, password = PASSWORD) {
  return fetch(`${replica.url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
    body: JSON.stringify({ UserName: userName, Password: password, KioskMode: false }),
  });
}

async function signedIn(replica: Replica, userName: string, address: string): Promise<UserSession> {
  const response = await signIn(replica, userName, address);
  if (response.status !== 200) throw new Error(`sign-in failed: ${response.status} ${await response.text()}`);
  const cookie = response.headers.getSetCookie().find((value) => value.startsWith('__Host-postern_session='));
  return { cookie: cookie?.split(';')[0] ?? '', address };
}

function userCall(replica: Replica, session: UserSession, method: string, url: string, body?: unknown) {
  return fetch(`${replica.url}${url}`, {
    method,
    headers: {
      cookie: session.cookie,
      'x-forwarded-for': session.address,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

describe('two servers on one PostgreSQL, with a real agent', () => {
  let schema: { url: string; drop(): Promise<void> } | null = null;
  let sharedKey: string;
  const replicas: Replica[] = [];
  let replicaA: Replica;
  let replicaB: Replica;
  /** Where the load balancer sends new connections. */
  let balancedTo: () => Replica;
  let adminPassword = '';
  let topology: GrantTopology | undefined;
  let agent: RunningProcess | undefined;
  let stateDir: string;
  let agentId: string;
  let aclId: string;
  let db: pg.Client;
  /** Alice's session, signed in on A by the first test; her grant lives as long as it does. */
  let alice: UserSession;

  /** Starts a server on the shared schema; the first one creates the admin and prints its password. */
  const startReplica = async (name: string, first = false): Promise<Replica> => {
    const dataDir = mkdtempSync(path.join(tmpdir(), `postern-replica-${name}-`));
    const { process: running, url } = await spawnPosternServer(dataDir, {
      ...PORTAL_SETTINGS,
      DATABASE_URL: schema?.url ?? '',
      POSTERN_SECRET_KEY: sharedKey,
    });
    const replica = { name, url, port: Number(new URL(url).port), process: running, dataDir };
    replicas.push(replica);
    if (first) {
      await running.waitForOutput(/Its password is shown only this once:\n\n\s+(\S+)\n/, 30_000);
      adminPassword = /Its password is shown only this once:\n\n\s+(\S+)\n/.exec(running.stdout())?.[1] ?? '';
    }
    await waitFor(
      async () => (await fetch(`${url}/api/theme`).catch(() => null)) !== null,
      `server ${name} to listen`,
      30_000,
    );
    return replica;
  };
  const kill = async (replica: Replica) => {
    try {
      if (replica.process.child.pid !== undefined) process.kill(replica.process.child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
    await replica.process.finished.catch(() => undefined);
  };
  /** The admin API on each server, signed in once (the admin may postpone TOTP enrolment only so often). */
  const admins = new Map<string, Promise<AdminApi>>();
  const adminOn = (replica: Replica) => {
    let admin = admins.get(replica.url);
    if (admin === undefined) {
      admin = AdminApi.signIn({ url: replica.url, adminPassword, store: 'postgres' } as PosternServer);
      admins.set(replica.url, admin);
    }
    return admin;
  };
  const topo = () => {
    if (topology === undefined) throw new Error('the topology did not start');
    return topology;
  };
  const inSet = async (address: string) => (await topo().setMembers()).has(address);
  const agentOnline = async (replica: Replica) =>
    (await (await adminOn(replica)).call<{ Online: boolean }>('GET', `/api/admin/agents/${agentId}`)).Online;

  beforeAll(async () => {
    if (missing !== null) return;
    schema = await createPostgresSchema();
    sharedKey = randomBytes(32).toString('base64');
    replicaA = await startReplica('a', true);
    replicaB = await startReplica('b');
    balancedTo = () => replicaB;
    topology = await createGrantTopology(() => balancedTo().port);
    db = new pg.Client({ connectionString: schema?.url });
    await db.connect();

    const admin = await adminOn(replicaA);
    await installLicence(admin);
    const created = await admin.call<{ ID: string; Token: string }>('POST', '/api/admin/agents', { Name: 'edge' });
    agentId = created.ID;
    stateDir = mkdtempSync(path.join(tmpdir(), 'postern-replica-agent-'));
    agent = startTopologyAgent(topology, created.Token, path.join(stateDir, 'state.json'));
    await waitFor(() => agentOnline(replicaA), 'the agent to connect (through B)', 20_000);
    const backend = await admin.call<{ ID: string }>('POST', '/api/admin/backends', {
      Name: 'edge ipset',
      AgentID: agentId,
      Config: { ipset: {} },
    });
    aclId = (
      await admin.call<{ ID: string }>('POST', '/api/admin/acls', {
        Description: 'Protected service',
        BackendID: backend.ID,
        Config: { ipset: { V4SetName: SET_NAME } },
      })
    ).ID;
    const userIds: string[] = [];
    for (const [userName, Duration] of [
      ['alice', 480],
      ['carol', 480],
      // Bob's sessions are the shortest a user can have; the lease test ends his sooner still.
      ['bob', 1],
    ] as const) {
      const user = (await admin.createLocalUser(userName, PASSWORD, { TOTPEnabled: false, Duration })) as {
        User: { ID: string };
      };
      userIds.push(user.User.ID);
    }
    await admin.call('POST', '/api/admin/groups', {
      Name: 'edge users',
      Type: 'local',
      ACLIDs: [aclId],
      UserIDs: userIds,
    });
  }, 120_000);

  afterAll(async () => {
    await stopAgent(agent);
    await topology?.dispose();
    for (const replica of replicas) await kill(replica);
    await db?.end().catch(() => undefined);
    await schema?.drop();
    for (const replica of replicas) rmSync(replica.dataDir, { recursive: true, force: true });
    if (stateDir !== undefined) rmSync(stateDir, { recursive: true, force: true });
  });

  beforeEach((context) => requireTool(context, missing));

  it('opens the port through A for the agent on B, and both servers show the agent online', async () => {
    const row = await db.query<{ connection_id: string | null }>('select connection_id from agents where id = $1', [
      agentId,
    ]);
    expect(row.rows[0]?.connection_id).not.toBeNull();
    expect([await agentOnline(replicaA), await agentOnline(replicaB)]).toEqual([true, true]);

    alice = await signedIn(replicaA, 'alice', ALICE_IP);
    expect(await topo().canConnect(ALICE_IP)).toBe(false);
    const granted = await userCall(replicaA, alice, 'POST', '/api/grant', { ACLID: aclId, IPs: [] });
    expect(granted.status).toBe(200);
    await waitFor(() => inSet(ALICE_IP), 'the grant made on A in the kernel set the agent on B drives', 10_000);
    expect(await topo().canConnect(ALICE_IP)).toBe(true);
  });

  it('takes a session made on A on B too, and its logout on B ends it on A', async () => {
    const carol = await signedIn(replicaA, 'carol', BOB_IP);
    expect((await userCall(replicaB, carol, 'POST', '/api/grant', { ACLID: aclId, IPs: [] })).status).toBe(200);
    await waitFor(() => inSet(BOB_IP), "carol's grant made on B", 10_000);
    expect((await userCall(replicaB, carol, 'POST', '/api/logout')).status).toBe(200);
    expect((await userCall(replicaA, carol, 'GET', '/api/status')).status).toBe(401);
    // Her logout ended her grant, and the agent heard of it.
    await waitFor(async () => !(await inSet(BOB_IP)), "carol's grant to end with her session", 10_000);
  });

  it('counts failed sign-ins on A when B decides, so the correct password is refused during the ban', async () => {
    for (let attempt = 0; attempt < 5; attempt += 1) {
      expect((await signIn(replicaA, 'carol', '192.0.2.77', 'wrong password')).status).toBe(401);
    }
    const banned = await signIn(replicaB, 'carol', '192.0.2.77');
    expect(banned.status).toBe(429);
    expect(banned.headers.get('retry-after')).not.toBeNull();
  });

  it('gets a change made while the notification connections were cut to the agent', async () => {
    await db.query("select pg_terminate_backend(pid) from pg_stat_activity where query ilike 'listen %'");
    expect((await userCall(replicaA, alice, 'DELETE', `/api/sessions/current/granted-acls/${aclId}`)).status).toBe(200);
    await waitFor(async () => !(await inSet(ALICE_IP)), 'the revoke made on A to reach the agent on B', 15_000);
    expect((await userCall(replicaA, alice, 'POST', '/api/grant', { ACLID: aclId, IPs: [] })).status).toBe(200);
    await waitFor(() => inSet(ALICE_IP), 'a grant after the listeners came back', 15_000);
  });

  it('moves the agent to A when B dies, and nothing is lost', async () => {
    const connectionOf = async () =>
      (await db.query<{ connection_id: string | null }>('select connection_id from agents where id = $1', [agentId]))
        .rows[0]?.connection_id ?? null;
    const onB = await connectionOf();
    balancedTo = () => replicaA;
    await kill(replicaB);
    // Alice's grant stays on the device while the agent reconnects, and after.
    expect(await inSet(ALICE_IP)).toBe(true);
    await waitFor(
      async () => {
        const now = await connectionOf();
        return now !== null && now !== onB && (await agentOnline(replicaA));
      },
      'the agent to reconnect to A',
      30_000,
    );
    expect(await inSet(ALICE_IP)).toBe(true);
    const bob = await signedIn(replicaA, 'bob', BOB_IP);
    expect((await userCall(replicaA, bob, 'POST', '/api/grant', { ACLID: aclId, IPs: [] })).status).toBe(200);
    await waitFor(() => inSet(BOB_IP), "bob's grant through A, where the agent is now", 10_000);
    await userCall(replicaA, bob, 'POST', '/api/logout');
  }, 60_000);

  it('ends an expired grant on time when the sweepers’ lease holder dies', async () => {
    replicaB = await startReplica('b2');
    const bob = await signedIn(replicaA, 'bob', BOB_IP);
    // Ends after A is gone and about when B can take the lease over (LEASE_TTL_MS after A's last renewal).
    const bobEnds = await endSessionsSoon({ kind: 'postgres', url: schema?.url ?? '' }, 'bob', 15_000);
    expect((await userCall(replicaA, bob, 'POST', '/api/grant', { ACLID: aclId, IPs: [] })).status).toBe(200);
    await waitFor(() => inSet(BOB_IP), "bob's grant", 10_000);
    // A started first and holds the lease; the agent moves to B once A is gone.
    balancedTo = () => replicaB;
    await kill(replicaA);
    expect(Date.now()).toBeLessThan(bobEnds);

    await waitFor(
      async () => {
        const ended = await db.query<{ end_reason: string | null }>(
          'select end_reason from grants where ip = $1 and ended_at is not null and end_reason = $2',
          [BOB_IP, 'expired'],
        );
        return ended.rows.length > 0;
      },
      'server B to take the lease over and end the expired grant',
      100_000,
    );
    const late = await db.query<{ late_ms: string }>(
      `select max(ended_at - expires_at) as late_ms from grants where ip = $1 and end_reason = 'expired'`,
      [BOB_IP],
    );
    // Within the lease's expiry and a renewal of the holder's death, and a sweep's second.
    expect(Number(late.rows[0]?.late_ms)).toBeLessThan(25_000);
    await waitFor(async () => !(await inSet(BOB_IP)), "bob's entry to leave the set", 15_000);
  }, 150_000);
});
