import { describe, expect, it } from 'vitest';
import { agentCapabilities, agentRecord, newAgentRecord } from '@/test-support/records/agents';
import { filterAgents } from './agent-search';

const edge = agentRecord({
  Name: 'Edge-Berlin',
  ExternalIP: '198.51.100.7:4711',
  Backends: [{ ID: 'b1', Name: 'office-firewall', Type: 'ipset' }],
});
const proxy = agentRecord({
  ID: 'a2',
  Name: 'proxy',
  Version: '1.6.3',
  ExternalIP: '2001:db8::5',
  Capabilities: agentCapabilities({ 'os-release': { NAME: 'Ubuntu', VERSION: '24.04 LTS' } }),
});
const fresh = newAgentRecord();
const agents = [edge, proxy, fresh];
const names = (query: string, shown?: Parameters<typeof filterAgents>[2]) =>
  filterAgents(agents, query, shown).map((agent) => agent.Name);

describe('filterAgents (spec: a search box filters rows by any field)', () => {
  it.each([
    ['', ['Edge-Berlin', 'proxy', 'fresh']],
    ['  edge-berlin ', ['Edge-Berlin']],
    ['UBUNTU', ['proxy']],
    ['1.6.3', ['proxy']],
    ['198.51.100.7', ['Edge-Berlin']],
    ['2001:db8', ['proxy']],
    ['postern-v6', ['Edge-Berlin', 'proxy']],
    ['haproxy.sock', ['Edge-Berlin', 'proxy']],
    ['knocproxy', ['Edge-Berlin', 'proxy']],
    ['office-firewall', ['Edge-Berlin']],
    ['nothing like it', []],
  ])('finds %j in %j', (query, expected) => {
    expect(names(query)).toEqual(expected);
  });

  it('searches the words a row shows besides its record', () => {
    const shown = (agent: (typeof agents)[number]) =>
      agent.LastSeen === null ? ['Awaiting connection'] : ['Connected'];
    expect(names('awaiting', shown)).toEqual(['fresh']);
  });

  it('does not find an agent by its token', () => {
    expect(names(fresh.Token)).toEqual([]);
  });

  it('does not find the port a stripped address had', () => {
    expect(names('4711')).toEqual([]);
  });
});
