import type { AgentKnocOf, NftablesFamily } from '@postern/protocol';
import pino from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import { managedRuleComment } from '../managed-rule/managed-rule.js';
import { FakeRuleset } from './fake-ruleset.test-support.js';
import { NftablesDriver } from './nftables-driver.js';
import { allowedTables, conntrackCommandLike, planNftManagedRules } from './nftables-managed-rule.js';
import { managedRuleExpr } from './nft-rules.js';

const ALLOWED = [
  'inet/postern/allow4',
  'inet/postern/allow6',
  'inet/postern/other4',
  'ip/filter4/a4',
  'ip6/filter6/a6',
];
const MANAGED = { Chain: 'input', Ports: [443, 22] };

let nft: FakeRuleset;
let driver: NftablesDriver;

function knoc(
  overrides: {
    aclId?: string;
    backendId?: string;
    family?: NftablesFamily;
    table?: string;
    managed?: unknown;
    v4?: string;
    v6?: string;
  } = {},
): AgentKnocOf<'nftables'> {
  return {
    aclId: overrides.aclId ?? 'acl-1',
    name: 'SSH',
    url: '',
    backendId: overrides.backendId ?? 'b1',
    backendType: 'nftables',
    backend: {
      Family: overrides.family ?? 'inet',
      Table: overrides.table ?? 'postern',
      ...(overrides.managed === undefined ? { ManagedRule: MANAGED } : { ManagedRule: overrides.managed }),
    } as AgentKnocOf<'nftables'>['backend'],
    acl: { V4SetName: overrides.v4 ?? 'allow4', V6SetName: overrides.v6 ?? 'allow6' },
  };
}

const entry = (ip: string) => ({ ip, ttlSeconds: 300, userName: 'alice' });

beforeEach(() => {
  nft = new FakeRuleset();
  nft.addChain('inet postern', 'input', [{ expr: [{ accept: null }] }]);
  driver = new NftablesDriver({
    allowedSets: ALLOWED,
    command: ['/usr/sbin/nft'],
    conntrackCommand: ['/usr/sbin/conntrack'],
    logger: pino({ level: 'silent' }),
    run: nft.run,
  });
});

describe('nftables ManagedRule: configure', () => {
  it('writes the rule of every knoc set of the backend, per family, with the backend marker', async () => {
    await driver.configure([knoc(), knoc({ aclId: 'acl-2', v4: 'other4', v6: '' })]);

    expect(nft.argvs()[0]).toBe('-j -t -a list table inet postern');
    const rules = nft.rules('inet postern', 'input');
    expect(rules.map((rule) => [rule.comment, rule.expr])).toEqual([
      [
        managedRuleComment('b1'),
        managedRuleExpr({ addressFamily: 'inet', ports: [22, 443], sets: ['allow4', 'other4'] }),
      ],
      [managedRuleComment('b1'), managedRuleExpr({ addressFamily: 'inet6', ports: [22, 443], sets: ['allow6'] })],
      [undefined, [{ accept: null }]],
    ]);
  });

  it('leaves out sets this agent may not use, and writes no rule for a family without sets', async () => {
    await driver.configure([knoc({ v4: 'allow4', v6: 'not_allowed6' })]);

    expect(nft.rules('inet postern', 'input').map((rule) => rule.expr)).toEqual([
      managedRuleExpr({ addressFamily: 'inet', ports: [22, 443], sets: ['allow4'] }),
      [{ accept: null }],
    ]);
  });

  it('only reads when nothing changed, and removes the rules when the ManagedRule goes', async () => {
    await driver.configure([knoc()]);
    nft.calls.length = 0;
    await driver.configure([knoc()]);
    expect(nft.argvs()).toEqual(['-j -t -a list table inet postern']);

    await driver.configure([knoc({ managed: null })]);

    expect(nft.rules('inet postern', 'input').map((rule) => rule.expr)).toEqual([[{ accept: null }]]);
  });

  it('removes the rules when the backend has no knocs any more', async () => {
    await driver.configure([knoc()]);

    await driver.configure([]);

    expect(nft.rules('inet postern', 'input')).toHaveLength(1);
  });

  it('uses only IPv4 in an ip table and only IPv6 in an ip6 table', async () => {
    nft.addChain('ip filter4', 'input');
    nft.addChain('ip6 filter6', 'input');

    await driver.configure([
      knoc({ backendId: 'four', family: 'ip', table: 'filter4', v4: 'a4', v6: 'a4' }),
      knoc({ backendId: 'six', family: 'ip6', table: 'filter6', v4: 'a6', v6: 'a6' }),
    ]);

    expect(nft.rules('ip filter4', 'input').map((rule) => rule.expr)).toEqual([
      managedRuleExpr({ addressFamily: 'inet', ports: [22, 443], sets: ['a4'] }),
    ]);
    expect(nft.rules('ip6 filter6', 'input').map((rule) => rule.expr)).toEqual([
      managedRuleExpr({ addressFamily: 'inet6', ports: [22, 443], sets: ['a6'] }),
    ]);
  });

  it('rejects naming the knocs whose rule cannot be written, and keeps an unreadable backend as it is', async () => {
    await driver.configure([knoc()]);
    nft.calls.length = 0;

    await expect(
      driver.configure([
        knoc({ managed: { Chain: 'input', Ports: [] } }),
        knoc({ aclId: 'x', backendId: 'b2', managed: { Chain: 'nochain', Ports: [22] } }),
      ]),
    ).rejects.toThrow(
      'nftables managed rule: knocs x (backend b2): table inet postern has no chain nochain; knocs acl-1 (backend b1): ManagedRule Ports: err.managedRulePortsRequired',
    );
    expect(nft.batches()).toEqual([]);
    expect(nft.rules('inet postern', 'input')).toHaveLength(3);
  });

  it('refuses a chain name nft could misread before anything runs', async () => {
    await expect(driver.configure([knoc({ managed: { Chain: 'input; flush ruleset', Ports: [22] } })])).rejects.toThrow(
      'ManagedRule Chain: err.managedRuleInvalidChain',
    );
    expect(nft.batches()).toEqual([]);
  });
});

describe('nftables ManagedRule: revoke', () => {
  it('ends the removed addresses’ connections per port after deleting the elements', async () => {
    const outcomes = await driver.remove(knoc(), [entry('192.0.2.7'), entry('2001:db8::/64'), entry('not-an-ip')]);

    expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, true, false]);
    const argvs = nft.argvs();
    expect(argvs[0]).toBe('-j -f -');
    expect(argvs.slice(1).sort()).toEqual(
      [
        '-D -p tcp -s 192.0.2.7 --dport 22',
        '-D -p tcp -s 192.0.2.7 --dport 443',
        '-D -p tcp -s 2001:db8:: --mask-src ffff:ffff:ffff:ffff:: --dport 22',
        '-D -p tcp -s 2001:db8:: --mask-src ffff:ffff:ffff:ffff:: --dport 443',
      ].sort(),
    );
    expect(nft.calls.slice(1).every((call) => call.argv[0] === '/usr/sbin/conntrack')).toBe(true);
  });

  it('runs no conntrack without a ManagedRule', async () => {
    await driver.remove(knoc({ managed: null }), [entry('192.0.2.7')]);

    expect(nft.argvs()).toEqual(['-j -f -']);
  });

  it('still succeeds when conntrack fails', async () => {
    nft.conntrackAnswer = {
      code: 2,
      stderr: 'conntrack v1.4.7 (conntrack-tools): Operation failed: Operation not permitted',
    };

    expect(await driver.remove(knoc(), [entry('192.0.2.7')])).toEqual([{ ip: '192.0.2.7', ok: true, error: '' }]);
  });
});

describe('nftables ManagedRule helpers', () => {
  it('runs conntrack the way nft runs', () => {
    expect(conntrackCommandLike(['ip', 'netns', 'exec', 'ns1', 'nft']).slice(0, 4)).toEqual([
      'ip',
      'netns',
      'exec',
      'ns1',
    ]);
    expect(conntrackCommandLike(['sudo', '-n', '/usr/sbin/nft']).slice(0, 2)).toEqual(['sudo', '-n']);
    expect(conntrackCommandLike(['sudo', '-n', '/usr/sbin/nft']).at(-1)).toMatch(/conntrack$/);
  });

  it('looks for leftovers only in the tables of the allowed sets with usable names', () => {
    expect(allowedTables([...ALLOWED, 'bridge/x/y', 'inet/bad name/s', 'inet'])).toEqual([
      { family: 'inet', table: 'postern' },
      { family: 'ip', table: 'filter4' },
      { family: 'ip6', table: 'filter6' },
    ]);
  });

  it('leaves a backend whose Table cannot be named unplanned and unreadable', () => {
    const { plans, unreadable } = planNftManagedRules([knoc({ table: 'bad table' })], new Set(ALLOWED));

    expect(plans).toEqual([]);
    expect(unreadable.get('b1')).toMatch(/is not a table name/);
  });
});
