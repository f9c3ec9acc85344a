// The network the grant benchmark runs on, made of namespaces only (on the host: loopback and a unix
// socket), the same shape as tests/system/support/grant-topology.ts:
//
//   client ns  10.77.0.1  ──veth──  10.77.0.2  protected ns
//                                     ip sets (hash:ip, timeout support)
//                                     iptables: tcp/7000 accepted only from the grant set,
//                                       everything else rejected with a TCP reset
//                                     nftables: table inet pbench, tcp/7001 accepted only from its
//                                       set pbench4 (flags timeout), else a TCP reset
//                                     a listener on 10.77.0.2:7000 and :7001
//                                     postern-agent (ipset runs in this namespace)
//
// The agent reaches the server (on the host's 127.0.0.1) through a relay: a listener on the protected
// namespace's own 127.0.0.1 forwards to a unix socket, which this process forwards to the server.
// Unix socket paths are shared across network namespaces; TCP is not.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { connectNamespaces, createNamespace, removeNamespace } from './netns.mjs';
import { startProcess } from './processes.mjs';

export const GRANT_SET = 'pbench4';
/** Sets of the extra knocs the status figure gives each user (empty; never granted). */
export const EXTRA_SETS = ['pbench4-b1', 'pbench4-b2', 'pbench4-b3', 'pbench4-b4'];
export const PROTECTED_ADDRESS = '10.77.0.2';
export const CLIENT_ADDRESS = '10.77.0.1';
export const SERVICE_PORT = 7000;
/** The nftables lane: its table and set (inet family), and the port its set opens. */
export const NFT_TABLE = 'pbench';
export const NFT_SET = 'pbench4';
export const NFT_SERVICE_PORT = 7001;
const NFT_RULESET = `
table inet ${NFT_TABLE} {
  set ${NFT_SET} { type ipv4_addr; flags timeout; }
  chain input {
    type filter hook input priority filter; policy accept;
    tcp dport ${NFT_SERVICE_PORT} ip saddr @${NFT_SET} accept
    tcp dport ${NFT_SERVICE_PORT} reject with tcp reset
  }
}
`;
const RELAY_PORT = 18_080;

const RELAY_SOURCE = `
const net = require('node:net');
const [socketPath, port] = process.argv.slice(1);
net.createServer((inbound) => {
  inbound.setNoDelay(true);
  const outbound = net.connect(socketPath);
  inbound.pipe(outbound).pipe(inbound);
  // After the pipe's own listener has passed it on: when an apply frame left toward the agent.
  outbound.on('data', (chunk) => {
    if (chunk.includes('"type":"apply"')) process.stdout.write('apply ' + process.hrtime.bigint() + '\\n');
  });
  inbound.on('error', () => outbound.destroy());
  outbound.on('error', () => inbound.destroy());
}).listen(Number(port), '127.0.0.1', () => console.log('relay ready'));
`;

const LISTENER_SOURCE = `
const net = require('node:net');
let listening = 0;
for (const port of [${SERVICE_PORT}, ${NFT_SERVICE_PORT}]) {
  net
    .createServer((socket) => { socket.on('error', () => {}); socket.end('hello\\n'); })
    .listen(port, '${PROTECTED_ADDRESS}', 1024, () => (listening += 1) === 2 && console.log('listening'));
}
`;

/**
 * Builds the topology; returns { client, protectedNs, agentServerUrl, applyMessageAfter(since),
 * retarget(port), setCount(set), dispose() }.
 * On failure everything made so far is removed before the error is rethrown.
 */
export async function createTopology(serverPort) {
  const dir = mkdtempSync(path.join(tmpdir(), 'postern-bench-topology-'));
  const applyMessages = [];
  const socketPath = path.join(dir, 'server.sock');
  const namespaces = [];
  const processes = [];
  let relay;
  /** The server new agent connections are relayed to (a load balancer's choice; see retarget). */
  let targetPort = serverPort;
  const dispose = async () => {
    for (const started of processes) await started.stop('SIGKILL');
    await new Promise((resolve) => (relay ? relay.close(() => resolve()) : resolve()));
    for (const namespace of namespaces) await removeNamespace(namespace.name);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const client = await createNamespace('cli');
    namespaces.push(client);
    const protectedNs = await createNamespace('prot');
    namespaces.push(protectedNs);
    await connectNamespaces(
      { namespace: client, interfaceName: 'veth-cli', address: `${CLIENT_ADDRESS}/24` },
      { namespace: protectedNs, interfaceName: 'veth-prot', address: `${PROTECTED_ADDRESS}/24` },
    );
    for (const set of [GRANT_SET, ...EXTRA_SETS]) {
      await protectedNs.exec(['ipset', 'create', set, 'hash:ip', 'family', 'inet', 'timeout', '0']);
    }
    const port = String(SERVICE_PORT);
    for (const rule of [
      ['-A', 'INPUT', '-p', 'tcp', '--dport', port, '-m', 'set', '--match-set', GRANT_SET, 'src', '-j', 'ACCEPT'],
      ['-A', 'INPUT', '-p', 'tcp', '--dport', port, '-j', 'REJECT', '--reject-with', 'tcp-reset'],
    ]) {
      await protectedNs.exec(['iptables', ...rule]);
    }
    // nft reads a file by path (its stdin would be a socket here, which it cannot open).
    const ruleset = path.join(dir, 'ruleset.nft');
    writeFileSync(ruleset, NFT_RULESET);
    await protectedNs.exec(['nft', '-f', ruleset]);
    const listener = startProcess([...protectedNs.prefix, process.execPath, '-e', LISTENER_SOURCE]);
    processes.push(listener);
    await listener.waitFor(/listening/);

    relay = createServer((inbound) => {
      const outbound = connect(targetPort, '127.0.0.1');
      outbound.setNoDelay(true);
      // When the server's incremental changes pass on their way to the agent: splits the grant
      // latency into the server's part and the agent's. (Server frames are unmasked JSON text.)
      outbound.on('data', (chunk) => {
        if (chunk.includes('"type":"apply"')) applyMessages.push(process.hrtime.bigint());
        if (applyMessages.length > 10_000) applyMessages.splice(0, 5_000);
      });
      inbound.pipe(outbound).pipe(inbound);
      inbound.on('error', () => outbound.destroy());
      outbound.on('error', () => inbound.destroy());
    });
    await new Promise((resolve) => relay.listen(socketPath, resolve));
    const innerApplyMessages = [];
    const inner = startProcess([
      ...protectedNs.prefix,
      process.execPath,
      '-e',
      RELAY_SOURCE,
      socketPath,
      String(RELAY_PORT),
    ]);
    processes.push(inner);
    await inner.waitFor(/relay ready/);
    readline.createInterface({ input: inner.child.stdout }).on('line', (line) => {
      const match = /^apply (\d+)$/.exec(line);
      if (match) innerApplyMessages.push(BigInt(match[1]));
      if (innerApplyMessages.length > 10_000) innerApplyMessages.splice(0, 5_000);
    });

    return {
      client,
      protectedNs,
      agentServerUrl: `http://127.0.0.1:${RELAY_PORT}`,
      /**
       * When the first `apply` message after `since` (hrtime) passed the relay in this process (`host`)
       * and the one inside the protected namespace (`inner`, just before the agent), or null.
       */
      applyMessageAfter(since) {
        const host = applyMessages.find((at) => at > since);
        const inner = innerApplyMessages.find((at) => at > since);
        return host === undefined || inner === undefined ? null : { host, inner };
      },
      /**
       * Relays connections opened from now on to the server on `port` (as a load balancer sends an
       * agent to another replica); open connections stay where they are.
       */
      retarget(port) {
        targetPort = port;
      },
      /** The set's "Number of entries" as `ipset list -t` reports it. */
      async setCount(set = GRANT_SET) {
        const { stdout } = await protectedNs.exec(['ipset', 'list', set, '-t']);
        const match = /Number of entries:\s*(\d+)/.exec(stdout);
        if (!match) throw new Error(`no entry count in: ${stdout}`);
        return Number(match[1]);
      },
      dispose,
    };
  } catch (error) {
    await dispose();
    throw error;
  }
}
