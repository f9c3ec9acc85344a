import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer, connect, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { capture, REPO_ROOT, waitFor, type RunningProcess } from '@postern/test-support';
import { AdminApi } from './support/admin-api.js';
import { launchChromium, newContext, screenshotPath } from './support/browser.js';
import { stopAgent } from './support/grant-topology.js';
import {
  connectNamespaces,
  createNamespace,
  missingNetnsSupport,
  removeNamespace,
  type Namespace,
} from './support/netns.js';
import { startPosternServer, type PosternServer } from './support/postern-server.js';
import { pipeSockets, waitForLine } from './support/relay.js';
import { CHROMIUM_PATH, missingBuild, missingChromium, requireTool } from './support/requirements.js';
import {
  PORTAL_SETTINGS,
  aclCard,
  createUserWithAcls,
  installLicence,
  signInToDashboard,
} from './support/user-portal.js';

/**
 * Issue 33 item 3, "dual stack in one click", on a real network with both families routed, made
 * only of namespaces this file creates (documentation addresses, nothing on the host but loopback):
 *
 *   client ns  192.0.2.10, 2001:db8:c::10   (Chromium)
 *       │ veth
 *   router ns  192.0.2.1, 2001:db8:c::1 │ 198.51.100.1, 2001:db8:5::1   (forwards both families)
 *       │ veth
 *   server ns  198.51.100.10, 2001:db8:5::10
 *              Postern on [::]:<port>, its discovery responder on [::]:8000 (both families)
 *              postern-agent with the ipsets postern4 (inet) and postern6 (inet6)
 *              tcp/7000 admitted only from those sets (iptables and ip6tables)
 *
 * Chromium resolves portal.postern.test and v6.postern.test to the server's IPv6 address only and
 * v4.postern.test to its IPv4 address only (--host-resolver-rules: a name with only an AAAA or only
 * an A record). The browser reaches the portal over IPv6 because Chromium counts 2001:db8::/32 as a
 * more private address space than 198.51.100.0/24, and refuses a plain-HTTP page's fetch into a more
 * private space (Private Network Access); from IPv6 to IPv4 it allows it. The admin sets
 * DiscoverIPv4URL and DiscoverIPv6URL to those names; the dashboard shows both of the browser's
 * addresses, and one click on Grant Access puts the IPv4 address into the v4 set and the IPv6
 * address into the v6 set, and the protected port answers over both families. Revoke takes both out again. The server stays out of reach of the host's PostgreSQL, so
 * it runs on SQLite; the test process reaches it through a relay (host 127.0.0.1 → a unix socket →
 * the server namespace's 127.0.0.1).
 */

const CLIENT_V4 = '192.0.2.10';
const CLIENT_V6 = '2001:db8:c::10';
const SERVER_V4 = '198.51.100.10';
const SERVER_V6 = '2001:db8:5::10';
const DISCOVERY_PORT = 8000;
const SERVICE_PORT = 7000;
const SETS = { v4: 'postern4', v6: 'postern6' } as const;
const PORTAL_HOST = 'portal.postern.test';
const HOST_RULES = [
  `MAP ${PORTAL_HOST} [${SERVER_V6}]`,
  `MAP v4.postern.test ${SERVER_V4}`,
  `MAP v6.postern.test [${SERVER_V6}]`,
].join(',');

const missing =
  missingChromium() ??
  missingBuild(REPO_ROOT) ??
  missingNetnsSupport({ ipset: 'ipset', iptables: 'iptables', ip6tables: 'iptables', sysctl: 'procps' });

const INNER_RELAY_SOURCE = `
const net = require('node:net');
const [socketPath, port] = process.argv.slice(1);
net.createServer((inbound) => {
  const outbound = net.connect(Number(port), '127.0.0.1');
  inbound.pipe(outbound).pipe(inbound);
  inbound.on('error', () => outbound.destroy());
  outbound.on('error', () => inbound.destroy());
}).listen(socketPath, () => console.log('relay ready'));
`;

// One listener for both families; the error handler keeps it alive when a probe resets.
const SERVICE_SOURCE = `
require('node:net').createServer((socket) => { socket.on('error', () => {}); socket.end('hello\\n'); })
  .listen({ host: '::', port: ${SERVICE_PORT} }, () => console.log('listening'));
`;

/** What one connection from the client namespace to the protected port came to. */
async function probe(client: Namespace, target: string): Promise<string> {
  const script = `
    const socket = require('node:net').connect({ host: '${target}', port: ${SERVICE_PORT} });
    socket.setTimeout(2000, () => { console.log('timeout'); process.exit(0); });
    socket.on('data', () => { console.log('connected'); process.exit(0); });
    socket.on('error', (error) => { console.log(error.code); process.exit(0); });
  `;
  return (await client.exec([process.execPath, '-e', script])).stdout.trim();
}

/** The members of one of the server namespace's sets. */
async function members(server: Namespace, set: string): Promise<string[]> {
  const { stdout } = await server.exec(['ipset', 'list', set, '-o', 'save']);
  return stdout
    .split('\n')
    .map((line) => /^add \S+ (\S+)/.exec(line.trim())?.[1])
    .filter((ip): ip is string => ip !== undefined)
    .sort();
}

describe('dual stack in one click', () => {
  const namespaces: Namespace[] = [];
  const children: ChildProcess[] = [];
  let dir = '';
  let server: PosternServer | undefined;
  let hostRelay: Server | undefined;
  let agent: RunningProcess | undefined;
  let browser: Browser | undefined;
  let portalUrl = '';
  let client: Namespace | undefined;
  let serverNs: Namespace | undefined;

  beforeAll(async () => {
    if (missing !== null) return;
    dir = mkdtempSync(path.join(tmpdir(), 'postern-dual-stack-'));
    const clientNs = await createNamespace('dualstack-cli');
    const router = await createNamespace('dualstack-rtr');
    const inner = await createNamespace('dualstack-srv');
    namespaces.push(clientNs, router, inner);
    client = clientNs;
    serverNs = inner;

    // Both families on both links, each with its default route through the router.
    await connectNamespaces(
      { namespace: clientNs, interfaceName: 'ds-cli', address: `${CLIENT_V4}/24` },
      { namespace: router, interfaceName: 'ds-rtr-c', address: '192.0.2.1/24' },
    );
    await connectNamespaces(
      { namespace: inner, interfaceName: 'ds-srv', address: `${SERVER_V4}/24` },
      { namespace: router, interfaceName: 'ds-rtr-s', address: '198.51.100.1/24' },
    );
    for (const [ns, device, address] of [
      [clientNs, 'ds-cli', `${CLIENT_V6}/64`],
      [router, 'ds-rtr-c', '2001:db8:c::1/64'],
      [inner, 'ds-srv', `${SERVER_V6}/64`],
      [router, 'ds-rtr-s', '2001:db8:5::1/64'],
    ] as const) {
      await ns.exec(['ip', '-6', 'addr', 'add', address, 'dev', device, 'nodad']);
    }
    await router.exec(['sysctl', '-q', '-w', 'net.ipv4.ip_forward=1', 'net.ipv6.conf.all.forwarding=1']);
    await clientNs.exec(['ip', 'route', 'add', 'default', 'via', '192.0.2.1']);
    await clientNs.exec(['ip', '-6', 'route', 'add', 'default', 'via', '2001:db8:c::1']);
    await inner.exec(['ip', 'route', 'add', 'default', 'via', '198.51.100.1']);
    await inner.exec(['ip', '-6', 'route', 'add', 'default', 'via', '2001:db8:5::1']);

    // The firewall the agent drives: one set per family, and a port only their members reach.
    await inner.exec(['ipset', 'create', SETS.v4, 'hash:ip', 'family', 'inet', 'timeout', '0']);
    await inner.exec(['ipset', 'create', SETS.v6, 'hash:ip', 'family', 'inet6', 'timeout', '0']);
    for (const [command, set] of [
      ['iptables', SETS.v4],
      ['ip6tables', SETS.v6],
    ] as const) {
      const port = ['-p', 'tcp', '--dport', String(SERVICE_PORT)];
      await inner.exec([command, '-A', 'INPUT', ...port, '-m', 'set', '--match-set', set, 'src', '-j', 'ACCEPT']);
      await inner.exec([command, '-A', 'INPUT', ...port, '-j', 'REJECT', '--reject-with', 'tcp-reset']);
    }
    const service = inner.spawn([process.execPath, '-e', SERVICE_SOURCE]);
    children.push(service);
    await waitForLine(service, 'listening');

    // Postern on both families; its responder on the discovery port, on both families too.
    server = await startPosternServer(
      {
        ...PORTAL_SETTINGS,
        POSTERN_HOST: '::',
        POSTERN_INSECURE_HTTP: 'true',
        POSTERN_IP_DISCOVERY_PORTS: String(DISCOVERY_PORT),
      },
      'sqlite',
      inner.prefix,
    );
    const port = Number(new URL(server.url).port);
    portalUrl = `http://${PORTAL_HOST}:${port}`;
    const socketPath = path.join(dir, 'portal.sock');
    const relayChild = inner.spawn([process.execPath, '-e', INNER_RELAY_SOURCE, socketPath, String(port)]);
    children.push(relayChild);
    await waitForLine(relayChild, 'relay ready');
    const relay = createNetServer((inbound) => pipeSockets(inbound, connect(socketPath)));
    hostRelay = relay;
    await new Promise<void>((resolve, reject) => {
      relay.once('error', reject);
      relay.listen(port, '127.0.0.1', resolve);
    });

    const admin = await AdminApi.signIn(server);
    await installLicence(admin);
    const created = await admin.call<{ ID: string; Token: string }>('POST', '/api/admin/agents', { Name: 'edge' });
    agent = capture(
      spawn(
        'ip',
        ['netns', 'exec', inner.name, process.execPath, path.join(REPO_ROOT, 'apps/agent/dist/main.js'), 'run'],
        {
          cwd: REPO_ROOT,
          env: {
            PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin',
            POSTERN_AGENT_SERVER_URL: `http://127.0.0.1:${port}`,
            POSTERN_AGENT_TOKEN: created.Token,
            POSTERN_AGENT_STATE_FILE: path.join(dir, 'agent-state.json'),
            POSTERN_AGENT_IPSET_ALLOWED_SETS: `${SETS.v4},${SETS.v6}`,
            POSTERN_AGENT_LOG_LEVEL: 'warn',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      ),
    );
    await waitFor(
      async () => {
        const seen = await admin.call<{ Online: boolean; Capabilities: unknown }>(
          'GET',
          `/api/admin/agents/${created.ID}`,
        );
        return seen.Online && seen.Capabilities !== null;
      },
      'the agent to connect and report its capabilities',
      20_000,
    );
    const backend = await admin.call<{ ID: string }>('POST', '/api/admin/backends', {
      Name: 'dual-stack host',
      AgentID: created.ID,
      Config: { ipset: {} },
    });
    // Not CGNATOpen: the other family comes with every grant of the user's address.
    const acl = await admin.call<{ ID: string }>('POST', '/api/admin/acls', {
      Description: 'Dual-stack service',
      BackendID: backend.ID,
      ClickToGrant: true,
      CGNATOpen: false,
      Config: { ipset: { V4SetName: SETS.v4, V6SetName: SETS.v6 } },
    });
    await createUserWithAcls(admin, 'dana', [acl.ID]);
    await admin.call('PUT', '/api/admin/settings/config', {
      DiscoverIP: true,
      DiscoverIPURL: '',
      DiscoverIPv4URL: 'http://v4.postern.test',
      DiscoverIPv6URL: 'http://v6.postern.test',
      DebugMode: false,
      GELFListenerURL: '',
      KioskSessionDuration: 30,
    });

    // Playwright starts "Chromium" with its pipes on fds 3 and 4; `ip netns exec` keeps them open.
    const wrapper = path.join(dir, 'chromium-in-client-namespace');
    writeFileSync(
      wrapper,
      `#!/bin/sh\nexec ip netns exec ${clientNs.name} ${CHROMIUM_PATH} '--host-resolver-rules=${HOST_RULES}' "$@"\n`,
    );
    chmodSync(wrapper, 0o755);
    browser = await launchChromium(wrapper);
  });

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    await stopAgent(agent);
    for (const child of children) child.kill('SIGKILL');
    hostRelay?.close();
    await server?.stop();
    for (const ns of namespaces) await removeNamespace(ns.name);
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });
  beforeEach((context) => requireTool(context, missing));

  it('shows both addresses, and one click opens the IPv4 one in the v4 set and the IPv6 one in the v6 set', async () => {
    if (browser === undefined || client === undefined || serverNs === undefined)
      throw new Error('the network did not start');
    const [clientNs, inner] = [client, serverNs];
    // Routed both ways (the firewall's reset comes back over each family), and closed until a grant.
    expect(await probe(clientNs, SERVER_V4)).toBe('ECONNREFUSED');
    expect(await probe(clientNs, SERVER_V6)).toBe('ECONNREFUSED');

    const page = await (await newContext(browser)).newPage();
    const blocked: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) blocked.push(message.text());
    });
    await signInToDashboard(page, portalUrl, 'dana');
    // The portal sees the IPv6 address; the IPv4-only name showed the browser its IPv4 one.
    await page.getByText('Your IP addresses', { exact: true }).waitFor({ timeout: 20_000 });
    await page.getByText(CLIENT_V6, { exact: true }).waitFor();
    await page.getByText(CLIENT_V4, { exact: true }).waitFor();
    expect(blocked).toEqual([]);

    const card = aclCard(page, 'Dual-stack service');
    const granted = page.waitForRequest(
      (request) => request.method() === 'POST' && new URL(request.url()).pathname === '/api/grant',
    );
    await card.getByRole('button', { name: 'Grant Access' }).click();
    const request = await granted;
    const body = request.postDataJSON() as { DualStackIPs: { IP: string; Port: number; Attestation: string }[] };
    // Each name answered on the responder's port only, with the responder's attestation.
    expect(body.DualStackIPs).toEqual([
      { Port: DISCOVERY_PORT, IP: CLIENT_V4, Attestation: expect.stringMatching(/^v1\./) as string },
      { Port: DISCOVERY_PORT, IP: CLIENT_V6, Attestation: expect.stringMatching(/^v1\./) as string },
    ]);
    await card.getByRole('button', { name: 'Revoke Access' }).waitFor({ timeout: 15_000 });

    await waitFor(
      async () => (await members(inner, SETS.v4)).length === 1 && (await members(inner, SETS.v6)).length === 1,
      'an entry in each set',
      15_000,
    );
    expect(await members(inner, SETS.v4)).toEqual([CLIENT_V4]);
    expect(await members(inner, SETS.v6)).toEqual([CLIENT_V6]);
    expect(await probe(clientNs, SERVER_V4)).toBe('connected');
    expect(await probe(clientNs, SERVER_V6)).toBe('connected');
    await page.screenshot({ path: screenshotPath('user-dashboard-dual-stack'), fullPage: true });

    await card.getByRole('button', { name: 'Revoke Access' }).click();
    await card.getByRole('button', { name: 'Grant Access' }).waitFor({ timeout: 15_000 });
    await waitFor(
      async () => (await members(inner, SETS.v4)).length === 0 && (await members(inner, SETS.v6)).length === 0,
      'both entries to leave their sets',
      15_000,
    );
    expect(await probe(clientNs, SERVER_V4)).toBe('ECONNREFUSED');
    expect(await probe(clientNs, SERVER_V6)).toBe('ECONNREFUSED');
  });
});
