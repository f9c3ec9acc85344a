import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { capture, REPO_ROOT, waitFor, type RunningProcess } from '@postern/test-support';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FortiosFake } from '../../apps/agent/test/fakes/fortios-fake.js';
import { selfSignedCertificate } from '../../apps/agent/test/support/self-signed.js';
import { generateLicenceKeyPair, issueLicence, publicKeyBase64 } from '../../apps/server/src/licence/licence-format.js';
import { AdminApi } from './support/admin-api.js';
import { stopAgent } from './support/grant-topology.js';
import { startPosternServer, type PosternServer } from './support/postern-server.js';
import { missingBuild, requireTool } from './support/requirements.js';

/**
 * A FortiOS knoc end to end: the built server, the built agent (a real process on this host) and
 * the FortiOS contract fake over HTTPS with a self-signed certificate (the backend's Insecure). A
 * user's grant becomes an address object in the knoc's group on the fake, the revoke takes it out,
 * and a grant whose session ends while the server is dead is still taken out by the agent on time.
 */
const TOKEN = 'forti-api-token-5f2a9c';
const GROUP = 'postern-vpn';
const CLIENT = '198.51.100.23';
const licenceSigner = generateLicenceKeyPair();
const missing = missingBuild(REPO_ROOT);

let server: PosternServer | undefined;
let agent: RunningProcess | undefined;
let fake: FortiosFake;
let admin: AdminApi;
let stateDir: string;
let aclId: string;
const password = 'correct horse battery staple';

/** What the fake's group holds, Postern's objects only. */
const granted = () => (fake.members(GROUP) ?? []).filter((name) => name.startsWith('kk_'));

async function signIn(userName: string): Promise<string> {
  const response = await fetch(`${server?.url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': CLIENT },
    body: JSON.stringify({ UserName: userName, Password: password, KioskMode: false }),
  });
  if (response.status !== 200) throw new Error(`sign-in failed: ${response.status} ${await response.text()}`);
  const cookie = response.headers.getSetCookie().find((value) => value.startsWith('__Host-postern_session='));
  return cookie?.split(';')[0] ?? '';
}

async function userCall(cookie: string, method: string, url: string, body?: unknown): Promise<void> {
  const response = await fetch(`${server?.url}${url}`, {
    method,
    headers: {
      cookie,
      'x-forwarded-for': CLIENT,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`${method} ${url} answered ${response.status}: ${await response.text()}`);
}

function startAgent(token: string): RunningProcess {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'apps/agent/dist/main.js'), 'run'], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      POSTERN_AGENT_SERVER_URL: server?.url ?? '',
      POSTERN_AGENT_TOKEN: token,
      POSTERN_AGENT_STATE_FILE: path.join(stateDir, 'state.json'),
      POSTERN_AGENT_KEY_FILE: path.join(stateDir, 'agent-key.pem'),
      POSTERN_AGENT_HEARTBEAT_SECONDS: '5',
      POSTERN_AGENT_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return capture(child);
}

describe('a FortiOS knoc through the real server and agent', () => {
  beforeAll(async () => {
    if (missing !== null) return;
    fake = await FortiosFake.start({ token: TOKEN, tls: selfSignedCertificate() });
    fake.addGroup(GROUP, { members: ['none'] });
    server = await startPosternServer(
      {
        POSTERN_TRUSTED_PROXIES: '127.0.0.1',
        POSTERN_LICENCE_PUBLIC_KEYS: publicKeyBase64(licenceSigner.publicKey),
      },
      'sqlite',
    );
    stateDir = mkdtempSync(path.join(tmpdir(), 'postern-fortios-'));
    admin = await AdminApi.signIn(server);
    const now = Date.now();
    await admin.call('PUT', '/api/admin/settings/license', {
      License: issueLicence(
        {
          ID: 'lic-system-fortios',
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
    const created = await admin.call<{ ID: string; Token: string }>('POST', '/api/admin/agents', {
      Name: 'fortigate-agent',
    });
    agent = startAgent(created.Token);
    await waitFor(
      async () => {
        const seen = await admin.call<{ Online: boolean; Capabilities: { backend_types: string[] } | null }>(
          'GET',
          `/api/admin/agents/${created.ID}`,
        );
        return seen.Online && (seen.Capabilities?.backend_types.includes('fortios') ?? false);
      },
      'the agent to connect and offer FortiOS',
      20_000,
    );
    const backend = await admin.call<{ ID: string }>('POST', '/api/admin/backends', {
      Name: 'branch FortiGate',
      AgentID: created.ID,
      Config: { fortios: { Url: fake.url, Insecure: true, Bearer: TOKEN } },
    });
    aclId = (
      await admin.call<{ ID: string }>('POST', '/api/admin/acls', {
        Description: 'Branch VPN',
        BackendID: backend.ID,
        Config: { fortios: { Name: GROUP } },
      })
    ).ID;
    for (const [userName, Duration] of [
      ['alice', 480],
      // Bob's sessions last one minute: his grant ends while the test watches.
      ['bob', 1],
    ] as const) {
      const user = (await admin.createLocalUser(userName, password, { TOTPEnabled: false, Duration })) as {
        User: { ID: string };
      };
      await admin.call('POST', '/api/admin/groups', {
        Name: `${userName} vpn`,
        Type: 'local',
        ACLIDs: [aclId],
        UserIDs: [user.User.ID],
      });
    }
  }, 90_000);

  afterAll(async () => {
    await stopAgent(agent);
    await server?.stop();
    await fake?.close();
    if (stateDir !== undefined) rmSync(stateDir, { recursive: true, force: true });
  });

  beforeEach((context) => requireTool(context, missing));

  it("puts the user's address in the knoc's group on a grant, and takes it out on revoke", async () => {
    const alice = await signIn('alice');
    await userCall(alice, 'POST', '/api/grant', { ACLID: aclId, IPs: [] });
    await waitFor(() => granted().includes(`kk_${CLIENT}`), 'the grant on the FortiGate', 10_000);
    expect(fake.address(`kk_${CLIENT}`)).toMatchObject({ type: 'ipmask', subnet: `${CLIENT}/32` });
    expect(fake.members(GROUP)).toContain('none');

    await userCall(alice, 'DELETE', `/api/sessions/current/granted-acls/${aclId}`);
    await waitFor(() => !granted().includes(`kk_${CLIENT}`), 'the revoke on the FortiGate', 10_000);
    expect(fake.members(GROUP)).toEqual(['none']);
  });

  it('takes a grant out when its session ends, with the server killed', async () => {
    const bob = await signIn('bob');
    await userCall(bob, 'POST', '/api/grant', { ACLID: aclId, IPs: [] });
    await waitFor(() => granted().includes(`kk_${CLIENT}`), 'the grant on the FortiGate', 10_000);
    if (server?.process.child.pid !== undefined) process.kill(server.process.child.pid, 'SIGKILL');

    // Bob's one-minute session ends; only the agent's own timer can take the address out now.
    await waitFor(() => granted().length === 0, 'the agent to expire the grant on its own', 75_000);
    expect(fake.members(GROUP)).toEqual(['none']);
  }, 90_000);
});
