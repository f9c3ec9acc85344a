import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, freePort, waitFor, type RunningProcess } from '@postern/test-support';
import { FAULT_POINTS, TEST_ONLY_KILL_AT_ENV } from '../../apps/agent/src/runtime/fault-points.js';
import { startPosternServer, type PosternServer } from './support/postern-server.js';
import { AdminApi } from './support/admin-api.js';
import { missingBuild, requireTool } from './support/requirements.js';
import { missingNetnsSupport } from './support/netns.js';
import { PORTAL_SETTINGS, USER_PASSWORD, installLicence } from './support/user-portal.js';
import {
  CLIENT_ADDRESSES,
  createGrantTopology,
  startTopologyAgent,
  stopAgent,
  type GrantTopology,
} from './support/grant-topology.js';
import {
  UserClient,
  agentOnline,
  createAgent,
  createIpsetKnoc,
  createUsersWithKnocs,
  opensFor,
} from './support/ipset-grants.js';

/**
 * The agent's write-ahead removal on a real kernel set: the built agent kills itself (SIGKILL) at
 * each point of a revoke (before the device call, between it and the state file write, after that
 * write), and is started again while the server is unreachable, from the state file it left. The
 * revoked address must never come back: not in the kernel set, not through the firewall.
 */

const [ALICE_IP] = CLIENT_ADDRESSES;
const missing =
  missingNetnsSupport({ ipset: 'ipset', iptables: 'iptables', haproxy: 'haproxy' }) ?? missingBuild(REPO_ROOT);

describe('a revoke cut short by a crash stays revoked after a restart with the server down', () => {
  let server: PosternServer | undefined;
  let topology: GrantTopology | undefined;
  let agent: RunningProcess | undefined;
  let admin: AdminApi;
  let users: UserClient;
  let aclId: string;
  let edge: { id: string; token: string };
  let dir: string;
  /** Whether the agent's connections reach the server (the relay sends them to a closed port otherwise). */
  let serverReachable = true;

  beforeAll(async () => {
    if (missing !== null) return;
    server = await startPosternServer(PORTAL_SETTINGS);
    const serverPort = Number(new URL(server.url).port);
    const closedPort = await freePort();
    topology = await createGrantTopology(() => (serverReachable ? serverPort : closedPort));
    dir = mkdtempSync(path.join(tmpdir(), 'postern-write-ahead-'));
    admin = await AdminApi.signIn(server);
    users = new UserClient(server);
    await installLicence(admin);
    edge = await createAgent(admin, 'edge-firewall');
    agent = startAgentIn('first', {});
    await agentOnline(admin, edge.id);
    aclId = await createIpsetKnoc(admin, edge.id);
    await createUsersWithKnocs(admin, [{ userName: 'alice', password: USER_PASSWORD, durationMinutes: 480 }], [aclId]);
    await stopAgent(agent);
  }, 90_000);

  afterAll(async () => {
    await stopAgent(agent);
    await topology?.dispose();
    await server?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  beforeEach((context) => requireTool(context, missing));

  const topo = () => {
    if (topology === undefined) throw new Error('the topology did not start');
    return topology;
  };

  /** The agent with a state file of its own per test; one key file for all, as one host keeps it. */
  function startAgentIn(name: string, settings: Record<string, string>): RunningProcess {
    return startTopologyAgent(topo(), edge.token, path.join(dir, name, 'state.json'), {
      POSTERN_AGENT_KEY_FILE: path.join(dir, 'agent-key.pem'),
      POSTERN_AGENT_LOG_LEVEL: 'info',
      ...settings,
    });
  }

  it.each(FAULT_POINTS)(
    'kills the agent %s, restarts it without a server, and the address stays refused',
    async (point) => {
      serverReachable = true;
      const stateFile = path.join(dir, point, 'state.json');
      agent = startAgentIn(point, { [TEST_ONLY_KILL_AT_ENV]: point });
      await agent.waitForOutput(/applied the desired state/, 20_000);
      const alice = await users.signIn('alice', USER_PASSWORD, ALICE_IP);
      await users.call(alice, 'POST', '/api/grant', { ACLID: aclId, IPs: [] });
      await opensFor(topo(), ALICE_IP);
      // Long before a revoke, the grant is in the state file (the agent writes it coalesced).
      await waitFor(
        () => existsSync(stateFile) && readFileSync(stateFile, 'utf8').includes(ALICE_IP),
        'the grant in the state file',
      );

      await users.call(alice, 'DELETE', `/api/sessions/current/granted-acls/${aclId}`);
      const died = await agent.finished;
      expect(died.signal).toBe('SIGKILL');

      serverReachable = false;
      agent = startAgentIn(point, {});
      // The agent restores from its state file before its first connection attempt.
      await agent.waitForOutput(/cannot connect to the server/, 20_000);
      expect((await topo().setMembers()).has(ALICE_IP)).toBe(false);
      expect(await topo().canConnect(ALICE_IP)).toBe(false);

      await stopAgent(agent);
      serverReachable = true;
      await users.call(alice, 'POST', '/api/logout');
    },
    60_000,
  );
});
