import type { ChildProcess } from 'node:child_process';
import type { AgentKnocOf } from '@postern/protocol';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCommand } from '../../apps/agent/src/drivers/command.js';
import type { CommandRunner } from '../../apps/agent/src/drivers/managed-rule/commands.js';
import { managedChainName } from '../../apps/agent/src/drivers/managed-rule/managed-rule.js';
import { IpsetDriver } from '../../apps/agent/src/drivers/ipset/ipset-driver.js';
import {
  connectNamespaces,
  createNamespace,
  missingNetnsSupport,
  removeAllNamespaces,
  type Namespace,
} from './support/netns.js';
import { waitForLine } from './support/relay.js';
import {
  LiveSessions,
  echoServerSource,
  expectExpiryEndsItsSession,
  expectRevokeEndsItsSession,
  flowing,
  sleep,
} from './support/live-sessions.js';
import { requireTool } from './support/requirements.js';

/**
 * Issue 33 item 4: a revoke, and the kernel's expiry of a set entry, end a connection already open,
 * not only new ones. Real iptables, ipset and conntrack, in namespaces this file makes:
 *
 *   client ns  10.78.0.1 (revoked), 10.78.0.3 (still granted)  ──veth──  10.78.0.2  protected ns
 *                                                                           ipset mr4, the admin's rules:
 *                                                                             ESTABLISHED,RELATED accept
 *                                                                             tcp/7100 from mr4 accept
 *                                                                             drop
 *                                                                           an echo server on 7100
 *
 * The ipset driver runs in this process (its ipset, iptables and conntrack through `ip netns exec`);
 * each session sends a byte every 100 ms and counts the echoes.
 */
const missing = missingNetnsSupport({ ipset: 'ipset', iptables: 'iptables', conntrack: 'conntrack' });
const SET = 'mr4';
const SET6 = 'mr6';
const PORT = 7100;
const SERVER = '10.78.0.2';
const REVOKED = '10.78.0.1';
const KEPT = '10.78.0.3';
const BACKEND_ID = 'backend-managed-rule';
const CHAIN = managedChainName(BACKEND_ID);

let client: Namespace;
let protectedNs: Namespace;
let server: ChildProcess | undefined;
const sessions = new LiveSessions(() => client, SERVER, PORT);
let driver: IpsetDriver | undefined;

beforeAll(async () => {
  if (missing !== null) return;
  client = await createNamespace('mrcli');
  protectedNs = await createNamespace('mrprot');
  await connectNamespaces(
    { namespace: client, interfaceName: 'veth-mrcli', address: `${REVOKED}/24` },
    { namespace: protectedNs, interfaceName: 'veth-mrprot', address: `${SERVER}/24` },
  );
  await client.exec(['ip', 'addr', 'add', `${KEPT}/24`, 'dev', 'veth-mrcli']);
  await protectedNs.exec(['ipset', 'create', SET, 'hash:ip', 'family', 'inet', 'timeout', '0']);
  await protectedNs.exec(['ipset', 'create', SET6, 'hash:ip', 'family', 'inet6', 'timeout', '0']);
  // A typical host firewall: established traffic first, then the set for new connections, then drop.
  for (const rule of [
    ['-A', 'INPUT', '-i', 'lo', '-j', 'ACCEPT'],
    ['-A', 'INPUT', '-m', 'conntrack', '--ctstate', 'ESTABLISHED,RELATED', '-j', 'ACCEPT'],
    ['-A', 'INPUT', '-p', 'tcp', '--dport', String(PORT), '-m', 'set', '--match-set', SET, 'src', '-j', 'ACCEPT'],
    ['-A', 'INPUT', '-j', 'DROP'],
  ]) {
    await protectedNs.exec(['iptables', ...rule]);
  }
  server = protectedNs.spawn([process.execPath, '-e', echoServerSource(SERVER, PORT)]);
  await waitForLine(server, 'listening');
});

afterAll(async () => {
  await removeAllNamespaces();
});

beforeEach(async (context) => {
  requireTool(context, missing);
  await protectedNs.exec(['ipset', 'flush', SET]);
  await protectedNs.exec(['conntrack', '-F']).catch(() => undefined);
});

afterEach(async () => {
  sessions.closeAll();
  if (missing !== null) return;
  // The managed rule goes when no knoc has it (and the next test starts from the admin's rules alone).
  const cleaner = newDriver();
  await cleaner.configure([]);
  await cleaner.close();
  await driver?.close();
  driver = undefined;
});

/** Every program the driver ran, for the idempotence check. */
const ran: string[][] = [];
const recording: CommandRunner = (argv, options) => {
  ran.push([...argv]);
  return runCommand(argv, options);
};

function newDriver(): IpsetDriver {
  return new IpsetDriver({
    allowedSets: [SET, SET6],
    command: [...protectedNs.prefix, 'ipset'],
    logger: pino({ level: 'silent' }),
    runner: recording,
  });
}

function knoc(managed: boolean, v6SetName = ''): AgentKnocOf<'ipset'> {
  return {
    aclId: 'acl-managed-rule',
    name: 'SSH',
    url: '',
    backendId: BACKEND_ID,
    backendType: 'ipset',
    backend: managed ? { ManagedRule: { Chain: 'INPUT', Ports: [PORT] } } : {},
    acl: { V4SetName: SET, V6SetName: v6SetName },
  };
}

const entry = (ip: string, ttlSeconds: number) => ({ ip, ttlSeconds, userName: 'alice' });

async function rules(): Promise<string> {
  return (await protectedNs.exec(['iptables', '-S'])).stdout;
}

describe('ending live connections (ManagedRule on an ipset backend)', () => {
  it('without ManagedRule, a session opened during the grant survives the revoke (the problem)', async () => {
    driver = newDriver();
    await driver.configure([knoc(false)]);
    await driver.apply(knoc(false), [entry(REVOKED, 300)]);
    const session = await sessions.open(REVOKED);

    await driver.remove(knoc(false), [entry(REVOKED, 300)]);
    await sleep(1_500);

    expect(flowing(session), await rules()).toBe(true);
    expect(await rules()).not.toContain('POSTERN-');
  });

  it('with ManagedRule, a revoke stops the session within 1 s while a granted one goes on', async () => {
    driver = newDriver();
    await driver.configure([knoc(true)]);
    const knocRules = await rules();
    expect(knocRules).toContain(
      `-A INPUT -p tcp -m multiport --dports ${PORT} -m comment --comment "postern managed rule backend ${BACKEND_ID}" -j ${CHAIN}`,
    );
    // The jump is the first rule of INPUT, ahead of the admin's accept of established connections.
    expect(knocRules.split('\n').find((line) => line.startsWith('-A INPUT'))).toContain(`-j ${CHAIN}`);
    await expectRevokeEndsItsSession({ driver, knoc: knoc(true), sessions, revoked: REVOKED, kept: KEPT });
  });

  it('with ManagedRule, the kernel expiry stops the session within 2 s, with the driver closed', async () => {
    driver = newDriver();
    await driver.configure([knoc(true)]);
    await expectExpiryEndsItsSession({ driver, knoc: knoc(true), sessions, revoked: REVOKED, kept: KEPT, ran });
  });

  it('converges idempotently and removes its chain when the ManagedRule is turned off', async () => {
    driver = newDriver();
    await driver.configure([knoc(true)]);
    ran.length = 0;

    await driver.configure([knoc(true)]);
    expect(
      ran.map((argv) => argv.slice(protectedNs.prefix.length).join(' ')),
      'a second configure only reads the tables',
    ).toEqual([expect.stringMatching(/iptables -w -t filter -S$/)]);

    await driver.configure([knoc(false)]);
    const after = await rules();
    expect(after).not.toContain('POSTERN-');
    expect(after).toContain(`-A INPUT -p tcp -m tcp --dport ${PORT} -m set --match-set ${SET} src -j ACCEPT`);
  });

  it('writes the IPv6 rule with ip6tables for the V6 set, and a restarted agent removes what it no longer wants', async () => {
    driver = newDriver();
    await driver.configure([knoc(true, SET6)]);
    const v6 = (await protectedNs.exec(['ip6tables', '-S'])).stdout;
    expect(v6).toContain(`-A ${CHAIN} -m set --match-set ${SET6} src`);
    expect(v6).not.toContain(`--match-set ${SET} src`);
    expect(await rules()).toContain(`-A ${CHAIN} -m set --match-set ${SET} src`);
    await driver.close();

    // A new process that is sent no such knoc finds the rules an earlier run left and removes them.
    driver = newDriver();
    await driver.configure([]);

    expect(await rules()).not.toContain('POSTERN-');
    expect((await protectedNs.exec(['ip6tables', '-S'])).stdout).not.toContain('POSTERN-');
  });
});
