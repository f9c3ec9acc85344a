import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, waitFor, type RunningProcess } from '@postern/test-support';
import type { KnocTestResult } from '@postern/protocol';
import { generateLicenceKeyPair, issueLicence, publicKeyBase64 } from '../../apps/server/src/licence/licence-format.js';
import { startPosternServer, type PosternServer, type StoreChoice } from './support/postern-server.js';
import { endSessionsSoon } from './support/session-end.js';
import { AdminApi } from './support/admin-api.js';
import { missingBuild, requireTool } from './support/requirements.js';
import { missingNetnsSupport } from './support/netns.js';
import {
  UserClient,
  agentOnline,
  createAgent,
  createIpsetKnoc,
  createUsersWithKnocs,
  type UserSession,
} from './support/ipset-grants.js';
import {
  CLIENT_ADDRESSES,
  SET_NAME,
  createGrantTopology,
  startTopologyAgent,
  stopAgent,
  type GrantTopology,
} from './support/grant-topology.js';

/**
 * The grant engine end to end on a real kernel firewall: the built server, the built agent inside
 * a protected network namespace driving a real ipset that a real iptables rule consults, and a
 * client namespace whose connections prove what is open. See support/grant-topology.ts.
 */

const licenceSigner = generateLicenceKeyPair();

/** Whether the agent's state file lists every address in `addresses` as a live (not removing) entry. */
function stateFileHolds(file: string, addresses: string[]): boolean {
  if (!existsSync(file)) return false;
  const { entries } = JSON.parse(readFileSync(file, 'utf8')) as { entries: { ip: string; removing?: boolean }[] };
  return addresses.every((address) => entries.some((entry) => entry.ip === address && entry.removing !== true));
}
const [ALICE_IP, BOB_IP] = CLIENT_ADDRESSES;

const missing =
  missingNetnsSupport({ ipset: 'ipset', iptables: 'iptables', haproxy: 'haproxy', curl: 'curl' }) ??
  missingBuild(REPO_ROOT);

describe.each<StoreChoice>(['sqlite', 'postgres'])('grants on a real firewall (%s)', (store) => {
  let server: PosternServer | undefined;
  let topology: GrantTopology | undefined;
  let agent: RunningProcess | undefined;
  let admin: AdminApi;
  let users: UserClient;
  let aclId: string;
  let proxyAclId: string;
  let agentToken: string;
  let stateDir: string;
  const password = 'correct horse battery staple';

  beforeAll(async () => {
    if (missing !== null) return;
    server = await startPosternServer(
      {
        POSTERN_TRUSTED_PROXIES: '127.0.0.1',
        POSTERN_LICENCE_PUBLIC_KEYS: publicKeyBase64(licenceSigner.publicKey),
      },
      store,
    );
    topology = await createGrantTopology(Number(new URL(server.url).port));
    stateDir = mkdtempSync(path.join(tmpdir(), 'postern-agent-state-'));
    admin = await AdminApi.signIn(server);
    users = new UserClient(server);
    const now = Date.now();
    await admin.call('PUT', '/api/admin/settings/license', {
      License: issueLicence(
        {
          ID: 'lic-system-grants',
          Licensee: 'Postern tests',
          UserLimit: 10,
          UserLimitOveragePercentage: 0,
          SessionLimit: 5,
          MaxMachines: 5,
          IssuedAt: new Date(now - 86_400_000).toISOString(),
          Expires: new Date(now + 30 * 86_400_000).toISOString(),
        },
        licenceSigner.privateKey,
      ),
    });
    const created = await createAgent(admin, 'edge-firewall');
    agentToken = created.token;
    agent = startTopologyAgent(topology, agentToken, path.join(stateDir, 'state.json'));
    await agentOnline(admin, created.id);
    aclId = await createIpsetKnoc(admin, created.id);
    const proxyBackend = await admin.call<{ ID: string }>('POST', '/api/admin/backends', {
      Name: 'protected host haproxy',
      AgentID: created.id,
      Config: { haproxy: { Protocol: 'unix', Address: topology.haproxy.socket } },
    });
    proxyAclId = (
      await admin.call<{ ID: string }>('POST', '/api/admin/acls', {
        Description: 'Protected web app',
        BackendID: proxyBackend.ID,
        Config: { haproxy: { ID: topology.haproxy.aclId } },
      })
    ).ID;
    // Bob's sessions last one minute: his grants expire while the test watches.
    await createUsersWithKnocs(
      admin,
      [
        { userName: 'alice', password, durationMinutes: 480 },
        { userName: 'bob', password, durationMinutes: 1 },
      ],
      [aclId, proxyAclId],
    );
  }, 90_000);

  afterAll(async () => {
    await stopAgent(agent);
    await topology?.dispose();
    await server?.stop();
    if (stateDir !== undefined) rmSync(stateDir, { recursive: true, force: true });
  });

  beforeEach((context) => requireTool(context, missing));

  const topo = () => {
    if (topology === undefined) throw new Error('the topology did not start');
    return topology;
  };
  /** Waits for `address` to get through; on a timeout says what the kernel set, the user's status and the agent's log held. */
  const opens = (address: string, session?: UserSession) =>
    waitFor(() => topo().canConnect(address), `${address} to get through`, 10_000).catch(async (error: unknown) => {
      const members = Object.fromEntries(await topo().setMembers());
      const acls = session === undefined ? undefined : (await users.call(session, 'GET', '/api/status')).data.ACLs;
      const agentLog = `${agent?.stdout() ?? ''}${agent?.stderr() ?? ''}`.slice(-3000);
      const probe = await topo().probe(address);
      const rules = await topo().rules();
      throw new Error(
        `${String(error)}; set: ${JSON.stringify(members)}; a probe now: ${probe}; rules: ${rules}; status: ${JSON.stringify(acls)}; the agent's log ends: ${agentLog}`,
      );
    });
  const closes = (address: string, timeoutMs = 10_000) =>
    waitFor(async () => !(await topo().canConnect(address)), `${address} to be refused`, timeoutMs);
  const grant = (session: UserSession) => users.call(session, 'POST', '/api/grant', { ACLID: aclId, IPs: [] });
  const revoke = (session: UserSession) => users.call(session, 'DELETE', `/api/sessions/current/granted-acls/${aclId}`);

  it('opens the firewall for the granted address only, and closes it on revoke', async () => {
    const alice = await users.signIn('alice', password, ALICE_IP);
    expect(await topo().canConnect(ALICE_IP)).toBe(false);
    await grant(alice);
    await opens(ALICE_IP);
    expect(await topo().canConnect(BOB_IP)).toBe(false);
    const members = await topo().setMembers();
    // The device holds its own expiry: the session's end, never "forever".
    expect(members.get(ALICE_IP)).toBeGreaterThan(8 * 3600 - 120);
    expect(members.get(ALICE_IP)).toBeLessThanOrEqual(8 * 3600);
    await revoke(alice);
    await closes(ALICE_IP);
    await users.call(alice, 'POST', '/api/logout');
  });

  it('admits the granted address through a real HAProxy frontend ACL, others get 403', async () => {
    const alice = await users.signIn('alice', password, ALICE_IP);
    expect(await topo().httpStatus(ALICE_IP)).toBe(403);
    await users.call(alice, 'POST', '/api/grant', { ACLID: proxyAclId, IPs: [] });
    await waitFor(async () => (await topo().httpStatus(ALICE_IP)) === 200, 'HAProxy to admit alice', 10_000).catch(
      async (error: unknown) => {
        const acls = (await users.call(alice, 'GET', '/api/status')).data.ACLs;
        throw new Error(`${String(error)}; status: ${JSON.stringify(acls?.find((acl) => acl.ACLID === proxyAclId))}`);
      },
    );
    expect(await topo().httpStatus(BOB_IP)).toBe(403);
    await users.call(alice, 'DELETE', `/api/sessions/current/granted-acls/${proxyAclId}`);
    await waitFor(async () => (await topo().httpStatus(ALICE_IP)) === 403, 'HAProxy to refuse alice again', 10_000);
    await users.call(alice, 'POST', '/api/logout');
  });

  it.each([
    ['the ipset', () => aclId],
    ['the HAProxy ACL', () => proxyAclId],
  ])('Test this knoc reads the address back from %s, then takes it off', async (_device, knoc) => {
    const result = await admin.call<KnocTestResult>('POST', `/api/admin/knocs/${knoc()}/test`, { IP: BOB_IP });
    expect(result).toMatchObject({
      IP: BOB_IP,
      Applied: true,
      ReadBack: { State: 'held', Held: true, Detail: '', AgentName: 'edge-firewall' },
      Revoked: true,
    });
    expect((await topo().setMembers()).has(BOB_IP)).toBe(false);
    expect(await topo().httpStatus(BOB_IP)).toBe(403);
  });

  it('moves access to the new address when the user’s address changes', async () => {
    const alice = await users.signIn('alice', password, ALICE_IP);
    await grant(alice);
    await opens(ALICE_IP);
    const moved = { ...alice, address: BOB_IP };
    await users.call(moved, 'GET', '/api/status');
    await opens(BOB_IP);
    await closes(ALICE_IP);
    await users.call(moved, 'POST', '/api/logout');
    await closes(BOB_IP);
  });

  it('keeps a shared address open until the last session behind it ends', async () => {
    const first = await users.signIn('alice', password, ALICE_IP);
    const second = await users.signIn('alice', password, ALICE_IP);
    await grant(first);
    await grant(second);
    await opens(ALICE_IP);
    await revoke(first);
    // Give a wrong removal every chance to happen before checking it did not.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await topo().canConnect(ALICE_IP)).toBe(true);
    await users.call(second, 'POST', '/api/logout');
    await closes(ALICE_IP);
    await users.call(first, 'POST', '/api/logout');
  });

  it('expires on time with the server and the agent both killed, and an agent restart restores exactly the unexpired entries', async () => {
    const alice = await users.signIn('alice', password, ALICE_IP);
    const bob = await users.signIn('bob', password, BOB_IP);
    if (server === undefined) throw new Error('no server');
    const bobEnds = await endSessionsSoon(server.storeLocation, 'bob', 15_000);
    await grant(alice);
    await grant(bob);
    await opens(ALICE_IP, alice);
    await opens(BOB_IP, bob);
    // The agent writes its state file coalesced (within 100 ms of a change): a kill before that
    // write would restart it without these grants, which is not what this test is about.
    await waitFor(
      () => stateFileHolds(path.join(stateDir, 'state.json'), [ALICE_IP, BOB_IP]),
      'both grants in the state file',
    );

    await stopAgent(agent);
    if (server.process.child.pid !== undefined) process.kill(server.process.child.pid, 'SIGKILL');
    await server.process.finished.catch(() => undefined);
    expect(Date.now()).toBeLessThan(bobEnds);

    // Bob's session ends with nothing of Postern running: the kernel's timeout does it.
    await closes(BOB_IP, bobEnds - Date.now() + 10_000);
    // Alice's grant still holds: her probe gets through (retried, as every probe here, so that one
    // answer slowed past the probe's 2 s by a busy machine is not taken for a closed port).
    await opens(ALICE_IP);
    const aliceLeft = (await topo().setMembers()).get(ALICE_IP) ?? 0;

    // A reboot empties the set; the agent restores what its state file says is still live.
    await topo().protectedNs.exec(['ipset', 'flush', SET_NAME]);
    expect(await topo().canConnect(ALICE_IP)).toBe(false);
    agent = startTopologyAgent(topo(), agentToken, path.join(stateDir, 'state.json'));
    await opens(ALICE_IP);
    const restored = await topo().setMembers();
    expect([...restored.keys()]).toEqual([ALICE_IP]);
    expect(Math.abs((restored.get(ALICE_IP) ?? 0) - aliceLeft)).toBeLessThanOrEqual(10);
  }, 120_000);
});
