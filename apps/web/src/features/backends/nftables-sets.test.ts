import { describe, expect, it } from 'vitest';
import { agentRecord, nftablesCapabilities } from '@/test-support/records/agents';
import { NO_TIMEOUT_REASON, nftablesSetChoices, nftablesTableOf, reportedNftablesTables } from './nftables-sets';

const agent = agentRecord({ Capabilities: nftablesCapabilities() });
const postern = { family: 'inet', table: 'postern' } as const;

describe('the nftables sets an agent reported', () => {
  it('offers the sets of the backend’s table and element type only', () => {
    expect(nftablesSetChoices(agent, postern, 'ipv6_addr')).toEqual([
      { name: 'allow6', disabled: false, reason: null },
    ]);
    expect(nftablesSetChoices(agent, { family: 'ip', table: 'filter' }, 'ipv4_addr').map((c) => c.name)).toEqual([
      'office4',
    ]);
    // The same table name in another family is another table.
    expect(nftablesSetChoices(agent, { family: 'ip', table: 'postern' }, 'ipv4_addr')).toEqual([]);
  });

  it('lists a set without flags timeout disabled, with the reason', () => {
    expect(nftablesSetChoices(agent, postern, 'ipv4_addr')).toEqual([
      { name: 'allow4', disabled: false, reason: null },
      { name: 'static4', disabled: true, reason: NO_TIMEOUT_REASON },
    ]);
  });

  it('names each table holding reported sets once, by family and then name', () => {
    expect(reportedNftablesTables(agent)).toEqual([
      { family: 'inet', table: 'postern' },
      { family: 'ip', table: 'filter' },
    ]);
    expect(reportedNftablesTables(agentRecord())).toEqual([]);
    expect(reportedNftablesTables(null)).toEqual([]);
  });

  it('reads the table of a backend config, inet while no family is set', () => {
    expect(nftablesTableOf({ Family: 'ip6', Table: ' edge ' })).toEqual({ family: 'ip6', table: 'edge' });
    expect(nftablesTableOf({ Family: 'bridge' })).toEqual({ family: 'inet', table: '' });
    expect(nftablesTableOf(undefined)).toEqual({ family: 'inet', table: '' });
  });
});
