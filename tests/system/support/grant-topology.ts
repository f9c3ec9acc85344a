import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { capture, REPO_ROOT, type RunningProcess } from '@postern/test-support';
import { connectNamespaces, createNamespace, removeNamespace, type Namespace } from './netns.js';
import { relayServerIntoNamespace, waitForLine, type ServerRelay } from './relay.js';

/**
 * The network the grant tests run on, made of namespaces only (nothing on the host but loopback):
 *
 *   client ns  10.77.0.1, 10.77.0.3  ──veth──  10.77.0.2  protected ns
 *                                               ipset postern4 (hash:ip, timeout support)
 *                                               iptables: tcp/7000 accepted only from postern4
 *                                               a listener on 10.77.0.2:7000
 *                                               haproxy on 10.77.0.2:8080 (403 unless its ACL has you)
 *                                               postern-agent (ipset runs in this namespace)
 *
 * The agent reaches the server (on the host's 127.0.0.1) through a relay: inside the protected
 * namespace a listener on its own 127.0.0.1 forwards to a unix socket, which the test process
 * forwards to the server. Unix socket paths are shared across network namespaces; TCP is not.
 */
export interface GrantTopology {
  client: Namespace;
  protectedNs: Namespace;
  /** The server address the agent uses, inside the protected namespace. */
  agentServerUrl: string;
  /** Whether a TCP connection from `source` (10.77.0.1 or .3) to the protected listener succeeds. */
  canConnect(source: string): Promise<boolean>;
  /**
   * What one connection from `source` came to: `connected`, `timeout`, the socket's error code
   * (ECONNRESET for the firewall's reset), or what the probe printed otherwise; for failure messages.
   */
  probe(source: string): Promise<string>;
  /** The protected namespace's INPUT rules with their packet counters (`iptables -L -v -n`), for failure messages. */
  rules(): Promise<string>;
  /** `ipset list postern4 -o save` members with their remaining timeout. */
  setMembers(): Promise<Map<string, number>>;
  /** HAProxy's runtime socket (unix paths are shared across namespaces) and its ACL's numeric id. */
  haproxy: { socket: string; aclId: string };
  /** The status HAProxy's frontend in the protected namespace gives a request from `source`. */
  httpStatus(source: string): Promise<number>;
  dispose(): Promise<void>;
}

export const SET_NAME = 'postern4';
export const PROTECTED_ADDRESS = '10.77.0.2';
export const CLIENT_ADDRESSES = ['10.77.0.1', '10.77.0.3'] as const;
const SERVICE_PORT = 7000;
const HAPROXY_PORT = 8080;
const RELAY_PORT = 18_080;

// The error handler matters: a probe that gives up resets its connection, and an unhandled reset
// would end this listener, after which every address looks refused (the Node 24 failure).
const LISTENER_SOURCE = `
require('node:net').createServer((socket) => { socket.on('error', () => {}); socket.end('hello\\n'); }).listen(${SERVICE_PORT}, '${PROTECTED_ADDRESS}', () => console.log('listening'));
`;

async function waitForSocket(file: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`haproxy did not open ${file}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The namespaces, the kernel set and its rules, HAProxy, and the relay that makes the server on the
 * host's `serverPort` (or, as a function, whichever port it names when the agent connects) reachable
 * inside the protected namespace.
 */
export async function createGrantTopology(serverPort: number | (() => number)): Promise<GrantTopology> {
  const client = await createNamespace('cli');
  const protectedNs = await createNamespace('prot');
  const children: ChildProcess[] = [];
  const dir = mkdtempSync(path.join(tmpdir(), 'postern-topology-'));
  const socketPath = path.join(dir, 'server.sock');
  const haproxySocket = path.join(dir, 'haproxy.sock');
  const haproxyConfig = path.join(dir, 'haproxy.cfg');
  const aclFile = path.join(dir, 'granted.acl');
  let relay: ServerRelay | undefined;
  try {
    await connectNamespaces(
      { namespace: client, interfaceName: 'veth-cli', address: `${CLIENT_ADDRESSES[0]}/24` },
      { namespace: protectedNs, interfaceName: 'veth-prot', address: `${PROTECTED_ADDRESS}/24` },
    );
    await client.exec(['ip', 'addr', 'add', `${CLIENT_ADDRESSES[1]}/24`, 'dev', 'veth-cli']);
    await protectedNs.exec(['ipset', 'create', SET_NAME, 'hash:ip', 'family', 'inet', 'timeout', '0']);
    for (const rule of [
      [
        '-A',
        'INPUT',
        '-p',
        'tcp',
        '--dport',
        String(SERVICE_PORT),
        '-m',
        'set',
        '--match-set',
        SET_NAME,
        'src',
        '-j',
        'ACCEPT',
      ],
      ['-A', 'INPUT', '-p', 'tcp', '--dport', String(SERVICE_PORT), '-j', 'REJECT', '--reject-with', 'tcp-reset'],
    ]) {
      await protectedNs.exec(['iptables', ...rule]);
    }
    const listener = protectedNs.spawn([process.execPath, '-e', LISTENER_SOURCE]);
    children.push(listener);
    await waitForLine(listener, 'listening');

    // A real HAProxy in the protected namespace whose frontend admits only its ACL's sources.
    writeFileSync(aclFile, '');
    writeFileSync(
      haproxyConfig,
      [
        'global',
        `  stats socket ${haproxySocket} level admin`,
        'defaults',
        '  mode http',
        '  timeout connect 5s',
        '  timeout client 5s',
        '  timeout server 5s',
        'frontend protected',
        `  bind ${PROTECTED_ADDRESS}:${HAPROXY_PORT}`,
        `  acl granted src -f ${aclFile}`,
        '  http-request deny deny_status 403 if !granted',
        '  http-request return status 200 content-type text/plain string granted',
        '',
      ].join('\n'),
    );
    children.push(protectedNs.spawn(['haproxy', '-db', '-f', haproxyConfig]));
    await waitForSocket(haproxySocket);

    relay = await relayServerIntoNamespace(protectedNs, serverPort, socketPath, RELAY_PORT);
    children.push(relay.child);
  } catch (error) {
    for (const child of children) child.kill('SIGKILL');
    relay?.close();
    await removeNamespace(client.name);
    await removeNamespace(protectedNs.name);
    throw error;
  }

  const probe = async (source: string): Promise<string> => {
    const script = `
      const socket = require('node:net').connect({ host: '${PROTECTED_ADDRESS}', port: ${SERVICE_PORT}, localAddress: '${source}' });
      socket.setTimeout(2000, () => { console.log('timeout'); process.exit(0); });
      socket.on('data', () => { console.log('connected'); process.exit(0); });
      socket.on('error', (error) => { console.log(error.code); process.exit(0); });
    `;
    const { stdout, stderr } = await client.exec([process.execPath, '-e', script]);
    return stdout.trim() || `no output (stderr: ${stderr.trim().slice(0, 200)})`;
  };

  return {
    client,
    protectedNs,
    agentServerUrl: relay.url,
    canConnect: async (source) => (await probe(source)) === 'connected',
    probe: (source) => probe(source),
    rules: async () => (await protectedNs.exec(['iptables', '-L', 'INPUT', '-v', '-n'])).stdout,
    setMembers: async () => {
      const { stdout } = await protectedNs.exec(['ipset', 'list', SET_NAME, '-o', 'save']);
      const members = new Map<string, number>();
      for (const line of stdout.split('\n')) {
        const match = /^add \S+ (\S+)(?: timeout (\d+))?/.exec(line.trim());
        if (match?.[1] !== undefined) members.set(match[1], Number(match[2] ?? 0));
      }
      return members;
    },
    // The first (and only) ACL file haproxy loads gets the id 0 in `show acl`.
    haproxy: { socket: haproxySocket, aclId: '0' },
    httpStatus: async (source) => {
      const { stdout } = await client.exec([
        'curl',
        '-s',
        '-o',
        '/dev/null',
        '-w',
        '%{http_code}',
        '--max-time',
        '3',
        '--interface',
        source,
        `http://${PROTECTED_ADDRESS}:${HAPROXY_PORT}/`,
      ]);
      return Number(stdout.trim());
    },
    dispose: async () => {
      for (const child of children) child.kill('SIGKILL');
      relay?.close();
      await removeNamespace(client.name);
      await removeNamespace(protectedNs.name);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The built agent as a process on this host (outside any namespace), connected to `serverUrl` with
 * `token`, its state in `stateFile`; `settings` adds agent settings (scripts, a log level).
 */
export function startHostAgent(
  serverUrl: string,
  token: string,
  stateFile: string,
  settings: Record<string, string> = {},
): RunningProcess {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'apps/agent/dist/main.js'), 'run'], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin',
      POSTERN_AGENT_SERVER_URL: serverUrl,
      POSTERN_AGENT_TOKEN: token,
      POSTERN_AGENT_STATE_FILE: stateFile,
      POSTERN_AGENT_LOG_LEVEL: 'warn',
      ...settings,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return capture(child);
}

/**
 * The built agent inside the protected namespace, driving its ipset `postern4` and its HAProxy;
 * `settings` adds agent settings (POSTERN_AGENT_SCRIPTS_* for a test that runs scripts).
 */
export function startTopologyAgent(
  topology: GrantTopology,
  token: string,
  stateFile: string,
  settings: Record<string, string> = {},
): RunningProcess {
  const child = spawn(
    'ip',
    [
      'netns',
      'exec',
      topology.protectedNs.name,
      process.execPath,
      path.join(REPO_ROOT, 'apps/agent/dist/main.js'),
      'run',
    ],
    {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin',
        POSTERN_AGENT_SERVER_URL: topology.agentServerUrl,
        POSTERN_AGENT_TOKEN: token,
        POSTERN_AGENT_STATE_FILE: stateFile,
        POSTERN_AGENT_IPSET_ALLOWED_SETS: SET_NAME,
        // The topology's HAProxy, reported as the agent's runtime API (the proxy wizard's default).
        POSTERN_AGENT_HAPROXY_SOCKET: topology.haproxy.socket,
        POSTERN_AGENT_HEARTBEAT_SECONDS: '5',
        POSTERN_AGENT_LOG_LEVEL: 'warn',
        ...settings,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return capture(child);
}

/** Stops the agent by its PID and waits for it to be gone. */
export async function stopAgent(agent: RunningProcess | undefined): Promise<void> {
  if (agent?.child.pid === undefined) return;
  try {
    process.kill(agent.child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
  await agent.finished.catch(() => undefined);
}
