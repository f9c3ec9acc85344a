import { describe, expect, it } from 'vitest';
import { ErrorCodes, HAPROXY_DEFAULT_UNIX_SOCKET } from '@postern/protocol';
import { agentCapabilities, agentRecord } from '@/test-support/records/agents';
import { configIssueKey } from '@/features/backends/config-rules';
import { firstIssues } from '@/test-support/form-issues';
import { agentSetNames, defaultSettings, settingsSchema, type SettingsValues } from './settings';

const issues = (values: SettingsValues) => firstIssues(settingsSchema, values, configIssueKey);

const unixSocket = { Protocol: 'unix', Address: '/var/run/haproxy.sock' };

describe('settings rules', () => {
  it.each<[string, SettingsValues, Record<string, string>]>([
    ['ipset with a v4 set', { Type: 'ipset', Backend: {}, Acl: { V4SetName: 'a', V6SetName: '' } }, {}],
    ['ipset with a v6 set', { Type: 'ipset', Backend: {}, Acl: { V4SetName: '', V6SetName: 'b' } }, {}],
    [
      'ipset without a set',
      { Type: 'ipset', Backend: {}, Acl: { V4SetName: '', V6SetName: '' } },
      { Acl: ErrorCodes.ipsetNameRequired },
    ],
    [
      'nftables with a table and a set',
      { Type: 'nftables', Backend: { Family: 'inet', Table: 'postern' }, Acl: { V4SetName: 'allow4', V6SetName: '' } },
      {},
    ],
    [
      'nftables without a table',
      { Type: 'nftables', Backend: { Family: 'inet', Table: '' }, Acl: { V4SetName: 'allow4', V6SetName: '' } },
      { 'Backend.Table': ErrorCodes.nftablesInvalidName },
    ],
    [
      'nftables with a managed rule without ports',
      {
        Type: 'nftables',
        Backend: { Family: 'inet', Table: 'postern', ManagedRule: { Chain: 'input', Ports: [] } },
        Acl: { V4SetName: 'allow4', V6SetName: '' },
      },
      { 'Backend.ManagedRule.Ports': ErrorCodes.managedRulePortsRequired },
    ],
    [
      'ipset with a managed rule on a chain that is not a name',
      { Type: 'ipset', Backend: { ManagedRule: { Chain: 'INPUT -j', Ports: [22] } }, Acl: { V4SetName: 'a' } },
      { 'Backend.ManagedRule.Chain': ErrorCodes.managedRuleInvalidChain },
    ],
    ['haproxy with a numeric ID', { Type: 'haproxy', Backend: unixSocket, Acl: { ID: '12' } }, {}],
    [
      'haproxy without an ID',
      { Type: 'haproxy', Backend: unixSocket, Acl: { ID: '' } },
      { 'Acl.ID': ErrorCodes.aclIdRequired },
    ],
    [
      'haproxy with a non-numeric ID',
      { Type: 'haproxy', Backend: unixSocket, Acl: { ID: '1a' } },
      { 'Acl.ID': ErrorCodes.aclIdMustBeNumber },
    ],
    [
      'haproxy with a relative socket path',
      { Type: 'haproxy', Backend: { Protocol: 'unix', Address: 'haproxy.sock' }, Acl: { ID: '1' } },
      { 'Backend.Address': ErrorCodes.invalidAddress },
    ],
    ['knocproxy with a name', { Type: 'knocproxy', Backend: unixSocket, Acl: { Name: 'web_1' } }, {}],
    [
      'knocproxy without a name',
      { Type: 'knocproxy', Backend: unixSocket, Acl: { Name: '' } },
      { 'Acl.Name': ErrorCodes.aclNameRequired },
    ],
    [
      'knocproxy with a hyphen',
      { Type: 'knocproxy', Backend: unixSocket, Acl: { Name: 'web-1' } },
      { 'Acl.Name': ErrorCodes.invalidKnocproxyAclName },
    ],
    ['script with a command', { Type: 'script', Backend: { Command: 'open.sh' }, Acl: { Name: '' } }, {}],
    [
      'script without a command',
      { Type: 'script', Backend: { Command: '' }, Acl: { Name: '' } },
      { 'Backend.Command': 'backendsScreen.validation.required' },
    ],
    [
      'script with a bad ACL name',
      { Type: 'script', Backend: { Command: 'open.sh' }, Acl: { Name: 'a b' } },
      { 'Acl.Name': ErrorCodes.invalidAclName },
    ],
  ])('%s', (_, values, expected) => {
    expect(issues(values)).toEqual(expected);
  });
});

describe('settings defaults', () => {
  it('takes the haproxy socket the agent reported, else the spec default', () => {
    const agent = agentRecord({ Capabilities: agentCapabilities({ haproxy: { socket_location: '/run/h.sock' } }) });
    expect(defaultSettings('haproxy', agent).Backend).toEqual({ Protocol: 'unix', Address: '/run/h.sock' });
    const without = agentRecord({ Capabilities: agentCapabilities({ haproxy: { socket_location: '' } }) });
    expect(defaultSettings('knocproxy', without).Backend).toEqual({
      Protocol: 'unix',
      Address: HAPROXY_DEFAULT_UNIX_SOCKET,
    });
  });

  it('offers the IP sets the agent reported, by address family', () => {
    const agent = agentRecord();
    expect(agentSetNames(agent, 'inet')).toEqual(['postern-v4']);
    expect(agentSetNames(agent, 'inet6')).toEqual(['postern-v6']);
    expect(agentSetNames(null, 'inet')).toEqual([]);
  });
});
