import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, waitFor, type RunningProcess } from '@postern/test-support';
import { startPosternServer, type PosternServer, type StoreChoice } from './support/postern-server.js';
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
 * The outside probe's clock hole, on a real kernel set: a grant is applied, the server's clock is
 * set back an hour (libfaketime under the built server, its offset read from a file the test
 * rewrites, so nothing in Postern needs a test hook), and the agent, its state file deleted, is
 * restarted and sent the grant's ttl by that clock: an hour too long. The kernel timeout must not
 * grow, and /readyz must say the clock is off.
 */

const [ALICE_IP] = CLIENT_ADDRESSES;

/** Debian's multithreaded libfaketime (package faketime), wherever the architecture puts it. */
function libfaketime(): string | null {
  for (const dir of readdirSync('/usr/lib', { withFileTypes: true })) {
    const candidate = path.join('/usr/lib', dir.name, 'faketime', 'libfaketimeMT.so.1');
    if (dir.isDirectory() && existsSync(candidate)) return candidate;
  }
  return null;
}

const library = libfaketime();
const missing =
  missingNetnsSupport({ ipset: 'ipset', iptables: 'iptables', haproxy: 'haproxy' }) ??
  (library === null ? 'libfaketime (apt-get install faketime)' : null) ??
  missingBuild(REPO_ROOT);

describe.each<StoreChoice>(['sqlite', 'postgres'])('a server clock set back an hour (%s)', (store) => {
  let server: PosternServer | undefined;
  let topology: GrantTopology | undefined;
  let agent: RunningProcess | undefined;
  let dir: string;
  let offsetFile: string;

  beforeAll(async () => {
    if (missing !== null) return;
    dir = mkdtempSync(path.join(tmpdir(), 'postern-clock-step-'));
    offsetFile = path.join(dir, 'faketime-offset');
    writeFileSync(offsetFile, '+0\n');
    server = await startPosternServer(PORTAL_SETTINGS, store, [
      'env',
      `LD_PRELOAD=${library ?? ''}`,
      `FAKETIME_TIMESTAMP_FILE=${offsetFile}`,
      // Re-read the offset file every second; monotonic clocks stay true (they must never step).
      'FAKETIME_CACHE_DURATION=1',
      'FAKETIME_DONT_FAKE_MONOTONIC=1',
    ]);
    topology = await createGrantTopology(Number(new URL(server.url).port));
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
  const readyz = async () => {
    const response = await fetch(`${server?.url ?? ''}/readyz`);
    return { status: response.status, body: (await response.json()) as { data?: { Status: string; Clock: string } } };
  };

  it('never raises the kernel timeout for an agent that lost its state file, and says so in /readyz', async () => {
    if (server === undefined) throw new Error('no server');
    const admin = await AdminApi.signIn(server);
    await installLicence(admin);
    const edge = await createAgent(admin, 'edge-firewall');
    const stateFile = path.join(dir, 'agent', 'state.json');
    const agentSettings = { POSTERN_AGENT_KEY_FILE: path.join(dir, 'agent-key.pem'), POSTERN_AGENT_LOG_LEVEL: 'info' };
    agent = startTopologyAgent(topo(), edge.token, stateFile, agentSettings);
    await agentOnline(admin, edge.id);
    // Grants on this knoc last five minutes: the kernel timeout starts near 300 s.
    const aclId = await createIpsetKnoc(admin, edge.id, { MaximumGrantDuration: 300 });
    await createUsersWithKnocs(admin, [{ userName: 'alice', password: USER_PASSWORD, durationMinutes: 480 }], [aclId]);
    const users = new UserClient(server);
    const alice = await users.signIn('alice', USER_PASSWORD, ALICE_IP);
    await users.call(alice, 'POST', '/api/grant', { ACLID: aclId, IPs: [] });
    await opensFor(topo(), ALICE_IP);
    const granted = (await topo().setMembers()).get(ALICE_IP) ?? 0;
    expect(granted).toBeGreaterThan(280);
    expect(granted).toBeLessThanOrEqual(300);
    expect((await readyz()).body.data?.Clock).toBe('ok');

    // The server's clock goes back an hour while it runs (its Date header shows it).
    writeFileSync(offsetFile, '-1h\n');
    await waitFor(
      async () => {
        const response = await fetch(`${server?.url ?? ''}/healthz`);
        return Date.now() - Date.parse(response.headers.get('date') ?? '') > 3_500_000;
      },
      "the server's clock to go back",
      10_000,
    );

    // The agent loses its state file and starts again: it holds nothing, the kernel still does.
    await stopAgent(agent);
    rmSync(stateFile);
    agent = startTopologyAgent(topo(), edge.token, stateFile, agentSettings);
    await agent.waitForOutput(/applied the desired state/, 20_000);

    const members = await topo().setMembers();
    expect(members.get(ALICE_IP)).toBeLessThanOrEqual(granted);
    // The server did send an hour too many: the agent refused that much.
    const refused = /"refusedSeconds":(\d+)/.exec(agent.stdout() + agent.stderr());
    expect(Number(refused?.[1] ?? 0)).toBeGreaterThan(3500);
    expect(await topo().canConnect(ALICE_IP)).toBe(true);

    // The server checks its clock every 30 s: against its own monotonic clock (the step) and the
    // agent's clock (an hour ahead of it). Still ready: agents enforce the expiries.
    await waitFor(async () => (await readyz()).body.data?.Clock === 'offset', '/readyz to report the offset', 45_000);
    expect((await readyz()).status).toBe(200);
    await users.call(alice, 'POST', '/api/logout');
  }, 120_000);
});
