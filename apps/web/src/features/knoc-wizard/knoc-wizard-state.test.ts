import { describe, expect, it } from 'vitest';
import { agentRecord, nftablesCapabilities } from '@/test-support/records/agents';
import { chooseAgent, chooseType, initialKnocWizardState, preferredType } from './knoc-wizard-state';

const ipsetOnly = agentRecord({ ID: 'a-ipset', Name: 'ipset-host' });
const both = agentRecord({ ID: 'a-both', Name: 'both', Capabilities: nftablesCapabilities() });
const nftOnly = agentRecord({
  ID: 'a-nft',
  Name: 'nft-host',
  Capabilities: nftablesCapabilities({ backend_types: ['nftables'] }),
});
const LINUX = ['ipset', 'nftables'] as const;

describe('the Linux wizard’s choice of ipset or nftables', () => {
  it('starts nftables from its defaults: family inet, no table, no sets, managed rule off', () => {
    const state = {
      ...initialKnocWizardState('agent', 'ipset'),
      ...chooseAgent(initialKnocWizardState('agent', 'ipset'), both),
    };
    const chosen = chooseType(state, 'nftables', [both]);
    expect(chosen.settings).toEqual({
      Type: 'nftables',
      Backend: { Family: 'inet', Table: '', ManagedRule: undefined },
      Acl: { V4SetName: '', V6SetName: '' },
    });
    expect(chosen.agentId).toBe('a-both');
  });

  it('lets go of an agent that cannot drive the chosen type', () => {
    const start = initialKnocWizardState('agent', 'ipset');
    const state = { ...start, ...chooseAgent(start, ipsetOnly) };
    expect(chooseType(state, 'nftables', [ipsetOnly, both]).agentId).toBeNull();
    expect(chooseType(state, 'ipset', [ipsetOnly])).toEqual({});
  });

  it('prefers the chosen type while an agent can drive it, else the first one some agent can', () => {
    expect(preferredType(LINUX, [ipsetOnly, nftOnly], 'ipset')).toBe('ipset');
    expect(preferredType(LINUX, [nftOnly], 'ipset')).toBe('nftables');
    expect(preferredType(LINUX, [ipsetOnly], 'nftables')).toBe('ipset');
    expect(preferredType(LINUX, [], 'ipset')).toBe('ipset');
  });
});
