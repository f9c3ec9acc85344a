import { describe, expect, it } from 'vitest';
import { IPTABLES_CHAIN_MAX_LENGTH, managedRuleComment, planManagedRules, readManagedRule } from './managed-rule.js';

const knoc = (backendId: string, backend: unknown, inet: string[], inet6: string[] = []) => ({
  backendId,
  backend,
  sets: { inet, inet6 },
});

describe('readManagedRule', () => {
  it('is off without ManagedRule', () => {
    expect(readManagedRule({}, IPTABLES_CHAIN_MAX_LENGTH)).toEqual({ rule: null });
  });

  it('takes the chain and the ports sorted, without duplicates', () => {
    expect(readManagedRule({ ManagedRule: { Chain: 'INPUT', Ports: [443, 22, 443] } }, 28)).toEqual({
      rule: { Chain: 'INPUT', Ports: [22, 443] },
    });
  });

  it.each([
    [{ Chain: '-j ACCEPT', Ports: [22] }, 'ManagedRule Chain: err.managedRuleInvalidChain'],
    [{ Chain: 'INPUT', Ports: [] }, 'ManagedRule Ports: err.managedRulePortsRequired'],
    [{ Chain: 'INPUT', Ports: [0] }, 'ManagedRule Ports.0: Too small: expected number to be >=1'],
    [{ Chain: 'C'.repeat(29), Ports: [22] }, `ManagedRule Chain: ${'C'.repeat(29)} is longer than 28 characters`],
    [
      { Chain: 'POSTERN-0123456789ab', Ports: [22] },
      "ManagedRule Chain: POSTERN-0123456789ab is one of Postern's own chains",
    ],
  ])('refuses %j', (rule, error) => {
    expect(readManagedRule({ ManagedRule: rule }, 28)).toEqual({ error });
  });
});

describe('managedRuleComment', () => {
  it('names the backend, or its short id when the id could not sit in a comment as it is', () => {
    expect(managedRuleComment('b-1')).toBe('postern managed rule backend b-1');
    expect(managedRuleComment('b "1"')).toMatch(/^postern managed rule backend #[0-9a-f]{12}$/);
  });
});

describe('planManagedRules', () => {
  it("makes one plan per backend with a ManagedRule, holding all its knocs' sets", () => {
    const rule = { ManagedRule: { Chain: 'INPUT', Ports: [22] } };
    const { plans, unreadable } = planManagedRules(
      [
        knoc('b-1', rule, ['ssh4'], ['ssh6']),
        knoc('b-1', rule, ['vpn4', 'ssh4']),
        knoc('b-2', {}, ['web4']),
        knoc('b-3', { ManagedRule: { Chain: 'bad chain', Ports: [22] } }, ['x4']),
      ],
      28,
    );

    expect(plans).toEqual([
      { backendId: 'b-1', chain: 'INPUT', ports: [22], sets: { inet: ['ssh4', 'vpn4'], inet6: ['ssh6'] } },
    ]);
    expect([...unreadable.keys()]).toEqual(['b-3']);
  });
});
