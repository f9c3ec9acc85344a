import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capture, REPO_ROOT, waitFor, type Finished, type RunningProcess } from '@postern/test-support';
import { spawn } from 'node:child_process';
import { AdminApi } from './support/admin-api.js';
import { startPosternServer, type PosternServer } from './support/postern-server.js';
import { missingBuild } from './support/requirements.js';
import { missingNetnsSupport } from './support/netns.js';
import {
  CLIENT_ADDRESSES,
  PROTECTED_ADDRESS,
  createGrantTopology,
  startTopologyAgent,
  stopAgent,
  type GrantTopology,
} from './support/grant-topology.js';
import { startLoadBalancer, type LoadBalancer } from './support/load-balancer.js';
import { PORTAL_SETTINGS, installLicence } from './support/user-portal.js';

/**
 * Issue 18 end to end: postern-client, installed from the built server by its install script and run
 * inside the client namespace, signs in with an API key through a load balancer in front of the
 * built server, and opens a port that a real agent enforces with a real ipset and iptables in the
 * protected namespace (support/grant-topology.ts). With --persist it keeps the grant on the client's
 * new address when its address changes, and closes it when stopped with SIGTERM. A revoked key
 * stops the next sign-in, and each failure has its exit code.
 */

/** The bundle `npm run build` makes, which the server hands out. */
const BUILT_CLIENT = path.join(REPO_ROOT, 'apps/client/dist/postern-client.mjs');
const [FIRST_ADDRESS, SECOND_ADDRESS] = CLIENT_ADDRESSES;
const LOAD_BALANCER_PORT = 18_443;
const KNOC = 'Backup DB';

const missing =
  missingNetnsSupport({ ipset: 'ipset', iptables: 'iptables', haproxy: 'haproxy', curl: 'curl' }) ??
  missingBuild(REPO_ROOT);

describe('postern-client on a real firewall', () => {
  let server: PosternServer | undefined;
  let topology: GrantTopology | undefined;
  let balancer: LoadBalancer | undefined;
  let agent: RunningProcess | undefined;
  let admin: AdminApi;
  let dir: string;
  let aclId: string;
  /** The client as the server's install script installed it (below a --root of the test's own). */
  let installedClient: string;

  /** Runs postern-client inside the client namespace; `input` goes to its stdin. */
  const client = (args: readonly string[], input?: string): RunningProcess => {
    const child = spawn(
      'ip',
      ['netns', 'exec', topology?.client.name ?? '', process.execPath, installedClient, ...args],
      {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin', HOME: dir },
        stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      },
    );
    if (input !== undefined) child.stdin?.end(input);
    return capture(child);
  };
  const run = (args: readonly string[], input?: string): Promise<Finished> => client(args, input).finished;
  /** Whether a connection from `source` in the client namespace reaches the protected port. */
  const reachable = async (source: string) => (await topology?.canConnect(source)) === true;

  /**
   * An API-key user made in the admin API holding the knoc, with the key created alongside it (its
   * AllowedFrom set when given), written by `postern-client init` to a config of its own.
   */
  const machine = async (name: string, allowedFrom?: { Prefix: string; Note: string }[]) => {
    const created = await admin.call<{ User: { ID: string }; PlaintextKey: string | null }>(
      'POST',
      '/api/admin/users',
      {
        Name: `${name} (machine)`,
        UserName: name,
        AuthType: 'apikey',
        Duration: 60,
        ApiKey: { Name: `${name} key` },
      },
    );
    const key = created.PlaintextKey ?? '';
    expect(key).not.toBe('');
    const user = await admin.call<Record<string, unknown>>('GET', `/api/admin/users/${created.User.ID}`);
    await admin.call('PUT', `/api/admin/users/${created.User.ID}`, { ...user, AclIds: [aclId] });
    if (allowedFrom !== undefined) {
      const keyId = (await keyNamed(`${name} key`)).ID;
      await admin.call('PUT', `/api/admin/api-keys/${keyId}`, { ID: keyId, AllowedFrom: allowedFrom });
    }
    const config = path.join(dir, name, 'client.json');
    const keyFile = path.join(dir, name, 'key');
    const init = await run(
      ['init', '--config', config, '--server', balancer?.url ?? '', '--key-file', keyFile, '--key-stdin'],
      `${key}\n`,
    );
    expect(init.code, init.stderr).toBe(0);
    return { config };
  };
  const keyNamed = async (name: string) => {
    const keys = await admin.call<{ ID: string; Name: string }[]>('GET', '/api/admin/api-keys');
    const key = keys.find((entry) => entry.Name === name);
    if (key === undefined) throw new Error(`no API key named ${name}`);
    return key;
  };

  beforeAll(async () => {
    if (missing !== null) return;
    dir = mkdtempSync(path.join(tmpdir(), 'postern-client-test-'));
    server = await startPosternServer(PORTAL_SETTINGS);
    const serverPort = Number(new URL(server.url).port);
    topology = await createGrantTopology(serverPort);
    balancer = await startLoadBalancer(
      topology.protectedNs,
      PROTECTED_ADDRESS,
      LOAD_BALANCER_PORT,
      serverPort,
      path.join(dir, 'balancer.sock'),
    );
    // Installed as a host would: the server's one-liner, fetched through the load balancer, checks
    // the download against the checksum the server filled in. The server has no POSTERN_PUBLIC_URL,
    // so its script needs --server.
    const root = path.join(dir, 'root');
    mkdirSync(root);
    await topology.client.exec([
      'sh',
      '-c',
      `curl -fsSL ${balancer.url}/api/agent/install-client.sh | sh -s -- --root '${root}' --server ${balancer.url}`,
    ]);
    installedClient = path.join(root, 'opt/postern-agent/postern-client.mjs');
    expect(readFileSync(installedClient).equals(readFileSync(BUILT_CLIENT))).toBe(true);
    // Deleting the client's first address must leave its second one (a secondary address of the same
    // subnet is otherwise deleted with the primary).
    await topology.client.exec(['sysctl', '-qw', 'net.ipv4.conf.veth-cli.promote_secondaries=1']);
    admin = await AdminApi.signIn(server);
    await installLicence(admin);
    const created = await admin.call<{ ID: string; Token: string }>('POST', '/api/admin/agents', {
      Name: 'db-firewall',
    });
    agent = startTopologyAgent(topology, created.Token, path.join(dir, 'agent-state.json'));
    await waitFor(
      async () => (await admin.call<{ Online: boolean }>('GET', `/api/admin/agents/${created.ID}`)).Online,
      'the agent to connect',
      30_000,
    );
    const backend = await admin.call<{ ID: string }>('POST', '/api/admin/backends', {
      Name: 'db firewall ipset',
      AgentID: created.ID,
      Config: { ipset: {} },
    });
    const knoc = await admin.call<{ ID: string }>('POST', '/api/admin/acls', {
      Description: KNOC,
      BackendID: backend.ID,
      Config: { ipset: { V4SetName: 'postern4' } },
    });
    aclId = knoc.ID;
  }, 120_000);

  afterAll(async () => {
    await stopAgent(agent);
    balancer?.child.kill('SIGKILL');
    balancer?.close();
    await topology?.dispose();
    await server?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it.skipIf(missing !== null)(
    'opens the port for the length of a job: login grants, logout closes',
    async () => {
      const { config } = await machine('backup-job');
      expect(await reachable(FIRST_ADDRESS)).toBe(false);

      const login = await run(['login', '--config', config, '--knoc', KNOC, '--json']);
      expect(login.code, login.stderr).toBe(0);
      const report = JSON.parse(login.stdout) as { Knocs: { Name: string; Status: string; ExpiresAt: string }[] };
      expect(report.Knocs).toEqual([expect.objectContaining({ Name: KNOC, Status: 'Granted' })]);
      expect(await reachable(FIRST_ADDRESS)).toBe(true);

      const status = await run(['status', '--config', config]);
      expect(status.code, status.stderr).toBe(0);
      expect(status.stdout).toContain(KNOC);

      const logout = await run(['logout', '--config', config]);
      expect(logout.code, logout.stderr).toBe(0);
      await waitFor(async () => !(await reachable(FIRST_ADDRESS)), 'the port to close after logout');
      expect((await run(['status', '--config', config])).code).toBe(11);
    },
    60_000,
  );

  it.skipIf(missing !== null)(
    'with --persist keeps the port open across an address change and closes it on SIGTERM',
    async () => {
      const { config } = await machine('backup-daemon');
      const daemon = client(['login', '--config', config, '--knoc', KNOC, '--persist', '--interval', '5']);
      try {
        await daemon.waitForOutput(/"Backup DB" granted until/, 20_000);
        expect(await reachable(FIRST_ADDRESS)).toBe(true);

        // The host's address changes: the client's next status call comes from the second address,
        // and the server moves the grant there.
        await topology?.client.exec(['ip', 'addr', 'del', `${FIRST_ADDRESS}/24`, 'dev', 'veth-cli']);
        await daemon.waitForOutput(/address changed from 10\.77\.0\.1 to 10\.77\.0\.3/, 20_000);
        await waitFor(() => reachable(SECOND_ADDRESS), 'the grant to follow the new address', 20_000);
        const members = await topology?.setMembers();
        expect([...(members?.keys() ?? [])]).toEqual([SECOND_ADDRESS]);

        daemon.child.kill('SIGTERM');
        const ended = await daemon.finished;
        expect(ended.code, ended.stderr).toBe(0);
        await waitFor(async () => !(await reachable(SECOND_ADDRESS)), 'the port to close on SIGTERM', 10_000);
      } finally {
        if (daemon.child.exitCode === null) daemon.child.kill('SIGKILL');
        await topology?.client
          .exec(['ip', 'addr', 'add', `${FIRST_ADDRESS}/24`, 'dev', 'veth-cli'])
          .catch(() => undefined);
      }
    },
    90_000,
  );

  it.skipIf(missing !== null)(
    'stops the next sign-in once the key is revoked, with the bad-key exit code',
    async () => {
      const { config } = await machine('revoked-job');
      expect((await run(['login', '--config', config, '--knoc', KNOC])).code).toBe(0);
      expect((await run(['logout', '--config', config])).code).toBe(0);
      await admin.call('DELETE', `/api/admin/api-keys/${(await keyNamed('revoked-job key')).ID}`);

      const refused = await run(['login', '--config', config, '--knoc', KNOC]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).not.toMatch(/\n\s+at /);
      expect(await reachable(FIRST_ADDRESS)).toBe(false);
    },
    60_000,
  );

  it.skipIf(missing !== null)(
    'says which rule refused it, each with its exit code and one line',
    async () => {
      const elsewhere = await machine('elsewhere-job', [{ Prefix: '192.0.2.0/24', Note: 'not here' }]);
      const notAllowed = await run(['login', '--config', elsewhere.config]);
      expect(notAllowed.code, notAllowed.stderr).toBe(4);

      const { config } = await machine('typo-job');
      const unknown = await run(['login', '--config', config, '--knoc', 'Backup DV']);
      expect(unknown.code, unknown.stderr).toBe(5);
      expect(unknown.stderr).toContain('Backup DV');
      for (const refused of [notAllowed, unknown]) expect(refused.stderr).not.toMatch(/\n\s+at /);
    },
    60_000,
  );
});
