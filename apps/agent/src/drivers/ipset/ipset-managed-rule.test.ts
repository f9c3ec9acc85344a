import type { AgentKnocOf } from '@postern/protocol';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { commandsLike } from '../managed-rule/commands.js';
import { BASE_TABLE, fakeRunner } from '../managed-rule/fake-runner.test-support.js';
import { managedChainName } from '../managed-rule/managed-rule.js';
import { IpsetDriver } from './ipset-driver.js';

const COMMANDS = {
  iptables: ['iptables'],
  iptablesRestore: ['iptables-restore'],
  ip6tables: ['ip6tables'],
  ip6tablesRestore: ['ip6tables-restore'],
  conntrack: ['conntrack'],
};
const NOTHING = { code: 1, stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been deleted.\n' };

function knoc(backend: AgentKnocOf<'ipset'>['backend'], aclId = 'acl-ssh'): AgentKnocOf<'ipset'> {
  return {
    aclId,
    name: 'SSH',
    url: '',
    backendId: 'backend-ssh',
    backendType: 'ipset',
    backend,
    acl: { V4SetName: 'ssh4', V6SetName: 'ssh6' },
  };
}
const MANAGED = knoc({ ManagedRule: { Chain: 'INPUT', Ports: [22, 2222] } });
const entry = (ip: string) => ({ ip, ttlSeconds: 60, userName: 'alice' });

function driverWith(answer: Parameters<typeof fakeRunner>[0], allowedSets = ['ssh4', 'ssh6']) {
  const fake = fakeRunner(answer);
  const driver = new IpsetDriver({
    allowedSets,
    command: ['ipset'],
    logger: pino({ level: 'silent' }),
    useShell: false,
    managedRuleCommands: COMMANDS,
    runner: fake.run,
  });
  return { driver, seen: fake.seen };
}

describe('ipset driver with a ManagedRule', () => {
  it("writes the backend's chain from configure, for each family whose set the agent may use", async () => {
    const { driver, seen } = driverWith((argv) => (argv.includes('-S') ? { stdout: BASE_TABLE } : undefined), ['ssh4']);

    await driver.configure([MANAGED, knoc({ ManagedRule: { Chain: 'INPUT', Ports: [22, 2222] } }, 'acl-other')]);

    expect(seen.map((run) => run.argv.join(' '))).toEqual([
      'iptables -w -t filter -S',
      'iptables-restore -w --noflush',
      // ssh6 is not among the agent's allowed sets: no IPv6 rule, only the look for leftovers.
      'ip6tables -w -t filter -S',
    ]);
    expect(seen[1]?.input).toContain(`-A ${managedChainName('backend-ssh')} -m set --match-set ssh4 src`);
    expect(seen[1]?.input).toContain('-I INPUT 1 -p tcp -m multiport --dports 22,2222');
  });

  it('rejects naming the knocs whose rules could not be written', async () => {
    const { driver } = driverWith((argv) =>
      argv.includes('-S') ? { stdout: BASE_TABLE } : { code: 1, stderr: 'iptables-restore: line 3 failed' },
    );

    await expect(driver.configure([MANAGED])).rejects.toThrow(
      'ipset managed rule: knocs acl-ssh (backend backend-ssh): IPv4: iptables-restore: iptables-restore: line 3 failed; IPv6: iptables-restore: iptables-restore: line 3 failed',
    );
  });

  it('rejects a ManagedRule the agent cannot use, and leaves its rules alone', async () => {
    const { driver, seen } = driverWith((argv) => (argv.includes('-S') ? { stdout: BASE_TABLE } : undefined));

    await expect(driver.configure([knoc({ ManagedRule: { Chain: 'A'.repeat(29), Ports: [22] } })])).rejects.toThrow(
      'is longer than 28 characters',
    );
    expect(seen.some((run) => run.argv[0]?.endsWith('-restore'))).toBe(false);
  });

  it("after the ipset del, ends the address's connections to each of the rule's ports", async () => {
    const { driver, seen } = driverWith((argv) => (argv[0] === 'conntrack' ? NOTHING : undefined));

    const outcomes = await driver.remove(MANAGED, [entry('203.0.113.7')]);

    expect(outcomes).toEqual([{ ip: '203.0.113.7', ok: true, error: '' }]);
    expect(seen).toEqual([
      { argv: ['ipset', 'restore', '-exist'], input: 'del ssh4 203.0.113.7\n' },
      { argv: ['conntrack', '-D', '-p', 'tcp', '-s', '203.0.113.7', '--dport', '22'] },
      { argv: ['conntrack', '-D', '-p', 'tcp', '-s', '203.0.113.7', '--dport', '2222'] },
    ]);
  });

  it('does not fail the removal when conntrack fails', async () => {
    const { driver } = driverWith((argv) =>
      argv[0] === 'conntrack' ? { code: 1, stderr: 'conntrack: Operation not permitted' } : undefined,
    );

    expect(await driver.remove(MANAGED, [entry('203.0.113.7')])).toEqual([{ ip: '203.0.113.7', ok: true, error: '' }]);
  });

  it('runs no conntrack for an address ipset could not remove, nor on a backend without a ManagedRule', async () => {
    const { driver, seen } = driverWith((argv) =>
      argv[1] === 'restore'
        ? { code: 1, stderr: 'ipset v7.17: Error in line 1: The set with the given name does not exist\n' }
        : undefined,
    );

    await driver.remove(MANAGED, [entry('203.0.113.7')]);
    await driver.remove(knoc({}), [entry('203.0.113.8')]);

    expect(seen.some((run) => run.argv[0] === 'conntrack')).toBe(false);
  });

  it('runs iptables and conntrack the way it runs ipset: inside the same namespace, through the same sudo', () => {
    const commands = commandsLike(['ip', 'netns', 'exec', 'ns1', '/usr/sbin/ipset']);
    expect(commands.iptables.slice(0, 4)).toEqual(['ip', 'netns', 'exec', 'ns1']);
    expect(commands.iptablesRestore.at(-1)).toMatch(/(^|\/)iptables-restore$/);
    expect(commands.conntrack.at(-1)).toMatch(/(^|\/)conntrack$/);
    expect(commandsLike(['sudo', '-n', 'ipset']).ip6tables.slice(0, 2)).toEqual(['sudo', '-n']);
  });
});
