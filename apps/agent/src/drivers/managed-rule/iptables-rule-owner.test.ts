import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { BASE_TABLE, fakeRunner } from './fake-runner.test-support.js';
import { IptablesRuleOwner } from './iptables-rule-owner.js';
import { managedChainName, type ManagedRulePlan } from './managed-rule.js';

const COMMANDS = {
  iptables: ['iptables'],
  iptablesRestore: ['iptables-restore'],
  ip6tables: ['ip6tables'],
  ip6tablesRestore: ['ip6tables-restore'],
};
const CHAIN = managedChainName('backend-ssh');
const COMMENT = '-m comment --comment "postern managed rule backend backend-ssh"';
const ADMIN_RULES = [
  '-A INPUT -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT',
  '-A INPUT -p tcp -m tcp --dport 22 -m set --match-set ssh4 src -j ACCEPT',
  '-A INPUT -j DROP',
];

function plan(overrides: Partial<ManagedRulePlan> = {}): ManagedRulePlan {
  return { backendId: 'backend-ssh', chain: 'INPUT', ports: [22], sets: { inet: ['ssh4'], inet6: [] }, ...overrides };
}

/** The table as `iptables -S` prints it with the backend's rules in place (spelled as iptables 1.8.9 does). */
function tableWith(ports: string, sets = ['ssh4']): string {
  return [
    BASE_TABLE,
    `-N ${CHAIN}`,
    `-A INPUT -p tcp -m multiport --dports ${ports} ${COMMENT} -j ${CHAIN}`,
    ...ADMIN_RULES,
    ...sets.map((set) => `-A ${CHAIN} -m set --match-set ${set} src ${COMMENT} -j RETURN`),
    `-A ${CHAIN} ${COMMENT} -j DROP`,
  ].join('\n');
}
const ADMIN_TABLE = [BASE_TABLE, ...ADMIN_RULES].join('\n');

/** An owner whose iptables -S answers `v4` and ip6tables -S answers `v6`. */
function ownerWith(v4: string, v6 = BASE_TABLE) {
  const fake = fakeRunner((argv) => {
    if (argv[0] === 'iptables' && argv.includes('-S')) return { stdout: v4 };
    if (argv[0] === 'ip6tables' && argv.includes('-S')) return { stdout: v6 };
    return undefined;
  });
  const owner = new IptablesRuleOwner({ commands: COMMANDS, logger: pino({ level: 'silent' }), run: fake.run });
  return { owner, seen: fake.seen };
}

describe('IptablesRuleOwner', () => {
  it('names its chain POSTERN- and a short id within iptables’ 28 characters', () => {
    expect(CHAIN).toMatch(/^POSTERN-[0-9a-f]{12}$/);
    expect(managedChainName('x'.repeat(64)).length).toBeLessThanOrEqual(28);
    expect(managedChainName('backend-a')).not.toBe(managedChainName('backend-b'));
  });

  it('creates the chain and puts its jump first in the admin chain, in one restore', async () => {
    const { owner, seen } = ownerWith(ADMIN_TABLE);

    const failures = await owner.converge([plan({ ports: [22, 443] })]);

    expect(failures.size).toBe(0);
    expect(seen).toEqual([
      { argv: ['iptables', '-w', '-t', 'filter', '-S'] },
      {
        argv: ['iptables-restore', '-w', '--noflush'],
        input: [
          '*filter',
          `:${CHAIN} - [0:0]`,
          `-A ${CHAIN} -m set --match-set ssh4 src ${COMMENT} -j RETURN`,
          `-A ${CHAIN} ${COMMENT} -j DROP`,
          `-I INPUT 1 -p tcp -m multiport --dports 22,443 ${COMMENT} -j ${CHAIN}`,
          'COMMIT',
          '',
        ].join('\n'),
      },
      // The first call also reads IPv6, for rules an earlier run may have left there; there are none.
      { argv: ['ip6tables', '-w', '-t', 'filter', '-S'] },
    ]);
  });

  it('writes nothing when the table already holds the rules', async () => {
    const { owner, seen } = ownerWith(tableWith('22'));

    expect((await owner.converge([plan()])).size).toBe(0);

    expect(seen.map((run) => run.argv[0])).toEqual(['iptables', 'ip6tables']);
  });

  it('replaces only the jump when the ports change', async () => {
    const { owner, seen } = ownerWith(tableWith('22'));

    await owner.converge([plan({ ports: [22, 2222] })]);

    expect(seen[1]).toEqual({
      argv: ['iptables-restore', '-w', '--noflush'],
      input: [
        '*filter',
        `-D INPUT -p tcp -m multiport --dports 22 ${COMMENT} -j ${CHAIN}`,
        `-I INPUT 1 -p tcp -m multiport --dports 22,2222 ${COMMENT} -j ${CHAIN}`,
        'COMMIT',
        '',
      ].join('\n'),
    });
  });

  it('rebuilds only the chain when the sets change, keeping the jump', async () => {
    const { owner, seen } = ownerWith(tableWith('22'));

    await owner.converge([plan({ sets: { inet: ['ssh4', 'vpn4'], inet6: [] } })]);

    expect(seen[1]?.input).toBe(
      [
        '*filter',
        `:${CHAIN} - [0:0]`,
        `-A ${CHAIN} -m set --match-set ssh4 src ${COMMENT} -j RETURN`,
        `-A ${CHAIN} -m set --match-set vpn4 src ${COMMENT} -j RETURN`,
        `-A ${CHAIN} ${COMMENT} -j DROP`,
        'COMMIT',
        '',
      ].join('\n'),
    );
  });

  it('moves its jump back to the top when another rule was inserted above it', async () => {
    const table = tableWith('22').replace(
      `-A INPUT -p tcp -m multiport`,
      `-A INPUT -i lo -j ACCEPT\n-A INPUT -p tcp -m multiport`,
    );
    const { owner, seen } = ownerWith(table);

    await owner.converge([plan()]);

    expect(seen[1]?.input).toBe(
      [
        '*filter',
        `-D INPUT -p tcp -m multiport --dports 22 ${COMMENT} -j ${CHAIN}`,
        `-I INPUT 1 -p tcp -m multiport --dports 22 ${COMMENT} -j ${CHAIN}`,
        'COMMIT',
        '',
      ].join('\n'),
    );
  });

  it('splits more than 15 ports over several jumps, all first and in order', async () => {
    const ports = Array.from({ length: 17 }, (_, index) => 1000 + index);
    const { owner, seen } = ownerWith(ADMIN_TABLE);

    await owner.converge([plan({ ports })]);

    const inserts = (seen[1]?.input ?? '').split('\n').filter((line) => line.startsWith('-I'));
    expect(inserts).toEqual([
      `-I INPUT 1 -p tcp -m multiport --dports 1015,1016 ${COMMENT} -j ${CHAIN}`,
      `-I INPUT 1 -p tcp -m multiport --dports ${ports.slice(0, 15).join(',')} ${COMMENT} -j ${CHAIN}`,
    ]);
  });

  it('removes the jump and the chain when no plan wants them, and stops reading afterwards', async () => {
    const { owner, seen } = ownerWith(tableWith('22'));

    await owner.converge([]);

    expect(seen[1]).toEqual({
      argv: ['iptables-restore', '-w', '--noflush'],
      input: [
        '*filter',
        `-D INPUT -p tcp -m multiport --dports 22 ${COMMENT} -j ${CHAIN}`,
        `-F ${CHAIN}`,
        `-X ${CHAIN}`,
        'COMMIT',
        '',
      ].join('\n'),
    });
    seen.length = 0;
    await owner.converge([]);
    expect(seen).toEqual([]);
  });

  it('never touches a POSTERN- chain holding a rule without the marker, nor the admin’s rules', async () => {
    const table = [
      ADMIN_TABLE,
      '-N POSTERN-0123456789ab',
      '-A POSTERN-0123456789ab -j ACCEPT',
      '-A INPUT -p tcp --dport 80 -j POSTERN-0123456789ab',
    ].join('\n');
    const { owner, seen } = ownerWith(table);

    await owner.converge([]);

    expect(seen.map((run) => run.argv[0])).toEqual(['iptables', 'ip6tables']);
  });

  it('reads nothing while nothing is wanted when told not to look for leftovers (an agent on sudo)', async () => {
    const fake = fakeRunner(() => ({ stdout: ADMIN_TABLE }));
    const owner = new IptablesRuleOwner({
      commands: COMMANDS,
      logger: pino({ level: 'silent' }),
      run: fake.run,
      lookForLeftovers: false,
    });

    await owner.converge([]);
    expect(fake.seen).toEqual([]);
    await owner.converge([plan()]);
    expect(fake.seen.map((run) => run.argv[0])).toEqual(['iptables', 'iptables-restore']);
  });

  it('keeps the rules of a backend whose ManagedRule could not be read', async () => {
    const { owner, seen } = ownerWith(tableWith('22'));

    await owner.converge([], new Set(['backend-ssh']));

    expect(seen.map((run) => run.argv[0])).toEqual(['iptables', 'ip6tables']);
  });

  it('writes IPv6 rules with ip6tables for the V6 sets', async () => {
    const { owner, seen } = ownerWith(ADMIN_TABLE);

    await owner.converge([plan({ sets: { inet: [], inet6: ['ssh6'] } })]);

    expect(seen.map((run) => run.argv[0])).toEqual(['iptables', 'ip6tables', 'ip6tables-restore']);
    expect(seen[2]?.input).toContain(`-A ${CHAIN} -m set --match-set ssh6 src ${COMMENT} -j RETURN`);
  });

  it('reports what iptables-restore said, by backend', async () => {
    const fake = fakeRunner((argv) => {
      if (argv.includes('-S')) return { stdout: ADMIN_TABLE };
      return {
        code: 2,
        stderr:
          "iptables-restore v1.8.9 (nf_tables): Set ssh4 doesn't exist.\n\nError occurred at line: 3\nTry `iptables-restore -h' for more information.\n",
      };
    });
    const owner = new IptablesRuleOwner({ commands: COMMANDS, logger: pino({ level: 'silent' }), run: fake.run });

    const failures = await owner.converge([plan()]);

    expect(failures.get('backend-ssh')).toBe(
      "IPv4: iptables-restore: iptables-restore v1.8.9 (nf_tables): Set ssh4 doesn't exist. Error occurred at line: 3",
    );
  });

  it('fails the backend when iptables cannot be read, but not a call with nothing to write', async () => {
    const fake = fakeRunner(() => ({ code: 4, stderr: 'iptables: Permission denied (you must be root).' }));
    const owner = new IptablesRuleOwner({ commands: COMMANDS, logger: pino({ level: 'silent' }), run: fake.run });

    expect((await owner.converge([])).size).toBe(0);
    expect((await owner.converge([plan()])).get('backend-ssh')).toBe(
      'IPv4: iptables -w -t filter -S: iptables: Permission denied (you must be root).',
    );
  });
});
