import { execFile } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statfsSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, freePort, waitFor, type RunningProcess } from '@postern/test-support';
import { FAULT_POINTS, TEST_ONLY_KILL_AT_ENV } from '../../apps/agent/src/runtime/fault-points.js';
import { journalReserveFile, removalJournalFile } from '../../apps/agent/src/runtime/removal-journal.js';
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
 * write), and is started again while the server is unreachable, from the state file and removal
 * journal it left. The revoked address must never come back: not in the kernel set, not through
 * the firewall. The same holds with the agent's state directory on a full disk.
 */

const run = promisify(execFile);
const [ALICE_IP] = CLIENT_ADDRESSES;
const missing =
  missingNetnsSupport({ ipset: 'ipset', iptables: 'iptables', haproxy: 'haproxy' }) ??
  missingBuild(REPO_ROOT) ??
  (process.getuid?.() === 0 ? null : 'root, to mount a tmpfs');

/** Room for the agent's state file, journal and its 1 MiB reserve, small enough to fill in a moment. */
const TMPFS_SIZE = '4m';

/** Writes `file` until the file system has no byte left. */
function fill(file: string): void {
  const fd = openSync(file, 'w', 0o600);
  try {
    for (const size of [1 << 20, 1 << 16, 1 << 12, 1 << 9, 1]) {
      const chunk = Buffer.alloc(size, 0xa5);
      for (;;) {
        try {
          writeSync(fd, chunk);
        } catch (error) {
          if (error instanceof Error && 'code' in error && error.code === 'ENOSPC') break;
          throw error;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}

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
  /** A small tmpfs for the full-disk cases, mounted in `dir`. */
  let fullDisk: string | undefined;

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
    const mountPoint = path.join(dir, 'full-disk');
    mkdirSync(mountPoint, { mode: 0o700 });
    await run('mount', ['-t', 'tmpfs', '-o', `size=${TMPFS_SIZE},mode=0700`, 'tmpfs', mountPoint]);
    fullDisk = mountPoint;
  }, 90_000);

  afterAll(async () => {
    await stopAgent(agent);
    if (fullDisk !== undefined) await run('umount', [fullDisk]);
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
  /** Alice's grant, opened and in the agent's state file, as long before a revoke. */
  async function granted(stateFile: string) {
    const alice = await users.signIn('alice', USER_PASSWORD, ALICE_IP);
    await users.call(alice, 'POST', '/api/grant', { ACLID: aclId, IPs: [] });
    await opensFor(topo(), ALICE_IP);
    await waitFor(
      () => existsSync(stateFile) && readFileSync(stateFile, 'utf8').includes(ALICE_IP),
      'the grant in the state file',
    );
    return alice;
  }

  /** Fills the full-disk tmpfs to the last byte; returns a function that frees it again. */
  function fillDisk(): () => void {
    const disk = fullDisk ?? '';
    const filler = path.join(disk, 'filler');
    fill(filler);
    expect(statfsSync(disk).bavail).toBe(0);
    return () => rmSync(filler, { force: true });
  }

  it('writes a revoke ahead on a full disk (the journal’s reserve), crashes, restarts without a server, and the address stays refused', async () => {
    serverReachable = true;
    const name = 'full-disk/reserve';
    const stateFile = path.join(dir, name, 'state.json');
    agent = startAgentIn(name, { [TEST_ONLY_KILL_AT_ENV]: 'before-device-remove' });
    await agent.waitForOutput(/applied the desired state/, 20_000);
    const alice = await granted(stateFile);
    expect(existsSync(journalReserveFile(stateFile))).toBe(true);
    const free = fillDisk();
    try {
      await users.call(alice, 'DELETE', `/api/sessions/current/granted-acls/${aclId}`);
      const died = await agent.finished;
      expect(died.signal).toBe('SIGKILL');
      // The append found no room, took the reserve's, and reached the disk before the device call.
      const output = agent.stdout() + agent.stderr();
      expect(output).toContain('released the removal journal’s reserve');
      expect(output).not.toContain('cannot write removals ahead');
      expect(readFileSync(removalJournalFile(stateFile), 'utf8')).toContain(ALICE_IP);
      expect((await topo().setMembers()).has(ALICE_IP)).toBe(true);

      serverReachable = false;
      agent = startAgentIn(name, {});
      await agent.waitForOutput(/cannot connect to the server/, 20_000);
      expect((await topo().setMembers()).has(ALICE_IP)).toBe(false);
      expect(await topo().canConnect(ALICE_IP)).toBe(false);
    } finally {
      await stopAgent(agent);
      free();
      serverReachable = true;
    }
    await users.call(alice, 'POST', '/api/logout');
  }, 60_000);

  it('still takes a revoked address off when a full disk leaves no room to write it ahead at all', async () => {
    serverReachable = true;
    const name = 'full-disk/no-room';
    const stateFile = path.join(dir, name, 'state.json');
    agent = startAgentIn(name, {});
    await agent.waitForOutput(/applied the desired state/, 20_000);
    const alice = await granted(stateFile);
    rmSync(journalReserveFile(stateFile));
    const free = fillDisk();
    try {
      await users.call(alice, 'DELETE', `/api/sessions/current/granted-acls/${aclId}`);

      await waitFor(async () => !(await topo().setMembers()).has(ALICE_IP), 'the address out of the set');
      expect(await topo().canConnect(ALICE_IP)).toBe(false);
      await agent.waitForOutput(/cannot write removals ahead/, 10_000);
      await agent.waitForOutput(/cannot write the state file/, 10_000);
      expect(agent.child.exitCode).toBeNull();
    } finally {
      free();
      await stopAgent(agent);
    }
    await users.call(alice, 'POST', '/api/logout');
  }, 60_000);
});
