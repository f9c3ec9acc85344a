import type { ChildProcess } from 'node:child_process';
import type { AgentKnocOf } from '@postern/protocol';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CommandResult, RunOptions } from '../../apps/agent/src/drivers/command.js';
import { managedRuleComment } from '../../apps/agent/src/drivers/managed-rule/managed-rule.js';
import { runNft } from '../../apps/agent/src/drivers/nftables/nft-command.js';
import { NftablesDriver } from '../../apps/agent/src/drivers/nftables/nftables-driver.js';
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
 * A revoke, and the kernel's expiry of a set element, end a connection already open on an
 * nftables backend with a ManagedRule, not only new ones. Real nft and conntrack, in namespaces
 * this file makes (the host's ruleset is never read or changed):
 *
 *   client ns  10.79.0.1 (revoked), 10.79.0.3 (still granted)  ──veth──  10.79.0.2  protected ns
 *                                                                           table inet mrnft, chain input:
 *                                                                             ct state established,related accept
 *                                                                             ip saddr @allow4 tcp dport 7101 accept
 *                                                                             tcp dport 7101 drop
 *                                                                           an echo server on 7101
 *
 * The nftables driver runs in this process (nft and conntrack through `ip netns exec`); each
 * session sends a byte every 100 ms and counts the echoes.
 */
const missing = missingNetnsSupport({ nft: 'nftables', conntrack: 'conntrack' });
const TABLE = 'mrnft';
const PORT = 7101;
const SERVER = '10.79.0.2';
const REVOKED = '10.79.0.1';
const KEPT = '10.79.0.3';
const BACKEND_ID = 'backend-managed-rule-nft';
const COMMENT = managedRuleComment(BACKEND_ID);

/** The typical ruleset of docs/agents.md: established traffic first, then the set for new connections. */
const RULESET = `
table inet ${TABLE} {
  set allow4 { type ipv4_addr; flags timeout; }
  set allow6 { type ipv6_addr; flags timeout; }
  chain input {
    type filter hook input priority filter; policy accept;
    ct state established,related accept
    ip saddr @allow4 tcp dport ${PORT} accept
    ip6 saddr @allow6 tcp dport ${PORT} accept
    tcp dport ${PORT} drop
  }
}
`;

let client: Namespace;
let protectedNs: Namespace;
let server: ChildProcess | undefined;
const sessions = new LiveSessions(() => client, SERVER, PORT);
let driver: NftablesDriver | undefined;

beforeAll(async () => {
  if (missing !== null) return;
  client = await createNamespace('mncli');
  protectedNs = await createNamespace('mnprot');
  await connectNamespaces(
    { namespace: client, interfaceName: 'veth-mncli', address: `${REVOKED}/24` },
    { namespace: protectedNs, interfaceName: 'veth-mnprot', address: `${SERVER}/24` },
  );
  await client.exec(['ip', 'addr', 'add', `${KEPT}/24`, 'dev', 'veth-mncli']);
  await protectedNs.exec(['nft', '-f', '-'], RULESET);
  server = protectedNs.spawn([process.execPath, '-e', echoServerSource(SERVER, PORT)]);
  await waitForLine(server, 'listening');
});

afterAll(async () => {
  await removeAllNamespaces();
});

beforeEach(async (context) => {
  requireTool(context, missing);
  await protectedNs.exec(['nft', 'flush', 'set', 'inet', TABLE, 'allow4']);
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
const recording = (argv: readonly string[], options: RunOptions): Promise<CommandResult> => {
  ran.push([...argv]);
  return runNft(argv, options);
};

function newDriver(): NftablesDriver {
  return new NftablesDriver({
    allowedSets: [`inet/${TABLE}/allow4`, `inet/${TABLE}/allow6`],
    command: [...protectedNs.prefix, 'nft'],
    logger: pino({ level: 'silent' }),
    run: recording,
  });
}

function knoc(managed: boolean, v6SetName = ''): AgentKnocOf<'nftables'> {
  return {
    aclId: 'acl-managed-rule-nft',
    name: 'SSH',
    url: '',
    backendId: BACKEND_ID,
    backendType: 'nftables',
    backend: {
      Family: 'inet',
      Table: TABLE,
      ...(managed ? { ManagedRule: { Chain: 'input', Ports: [PORT] } } : {}),
    },
    acl: { V4SetName: 'allow4', V6SetName: v6SetName },
  };
}

const entry = (ip: string, ttlSeconds: number) => ({ ip, ttlSeconds, userName: 'alice' });

/** The chain's rules as nft prints them, one a line, without the chain's own lines. */
async function chainRules(): Promise<string[]> {
  const { stdout } = await protectedNs.exec(['nft', 'list', 'chain', 'inet', TABLE, 'input']);
  return stdout
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^(table|chain|type|\})/.test(line));
}

describe('ending live connections (ManagedRule on an nftables backend)', () => {
  it('without ManagedRule, a session opened during the grant survives the revoke (the problem)', async () => {
    driver = newDriver();
    await driver.configure([knoc(false)]);
    await driver.apply(knoc(false), [entry(REVOKED, 300)]);
    const session = await sessions.open(REVOKED);

    await driver.remove(knoc(false), [entry(REVOKED, 300)]);
    await sleep(1_500);

    expect(flowing(session), (await chainRules()).join('\n')).toBe(true);
    expect((await chainRules()).join('\n')).not.toContain('postern');
  });

  it('with ManagedRule, a revoke stops the session within 1 s while a granted one goes on', async () => {
    driver = newDriver();
    await driver.configure([knoc(true)]);
    // The rule is the first of the chain, ahead of the admin's accept of established connections.
    expect((await chainRules())[0]).toBe(`tcp dport ${PORT} ip saddr != @allow4 drop comment "${COMMENT}"`);
    await expectRevokeEndsItsSession({ driver, knoc: knoc(true), sessions, revoked: REVOKED, kept: KEPT });
  });

  it('with ManagedRule, the kernel expiry stops the session within 2 s, with the driver closed', async () => {
    driver = newDriver();
    await driver.configure([knoc(true)]);
    await expectExpiryEndsItsSession({ driver, knoc: knoc(true), sessions, revoked: REVOKED, kept: KEPT, ran });
  });

  it('converges idempotently, replaces the rule when it changes and removes it when the ManagedRule goes', async () => {
    driver = newDriver();
    await driver.configure([knoc(true)]);
    ran.length = 0;

    await driver.configure([knoc(true)]);
    expect(
      ran.map((argv) => argv.slice(protectedNs.prefix.length).join(' ')),
      'a second configure only reads the table',
    ).toEqual([`nft -j -t -a list table inet ${TABLE}`]);

    await driver.configure([knoc(true, 'allow6')]);
    const both = await chainRules();
    expect(both.slice(0, 2)).toEqual([
      `tcp dport ${PORT} ip saddr != @allow4 drop comment "${COMMENT}"`,
      `tcp dport ${PORT} ip6 saddr != @allow6 drop comment "${COMMENT}"`,
    ]);
    expect(both.filter((line) => line.includes(COMMENT))).toHaveLength(2);

    await driver.configure([knoc(false)]);
    expect(await chainRules()).toEqual([
      'ct state established,related accept',
      `ip saddr @allow4 tcp dport ${PORT} accept`,
      `ip6 saddr @allow6 tcp dport ${PORT} accept`,
      `tcp dport ${PORT} drop`,
    ]);
  });

  it('a restarted agent removes the rules an earlier run left', async () => {
    driver = newDriver();
    await driver.configure([knoc(true)]);
    await driver.close();

    driver = newDriver();
    await driver.configure([]);

    expect((await chainRules()).join('\n')).not.toContain('postern');
  });
});
