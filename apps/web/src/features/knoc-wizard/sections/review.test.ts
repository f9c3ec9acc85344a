import { describe, expect, it } from 'vitest';
import { GrantStatus } from '@postern/protocol';
import { agentRecord, nftablesCapabilities } from '@/test-support/records/agents';
import { groupRecord } from '@/test-support/records/groups';
import { userRecord } from '@/test-support/fixtures';
import { defaultKnocOptions } from './knoc-options';
import { agentWarnings, chosenMembers, previewEntry } from './review';

const ipset = (V4SetName: string, V6SetName = '') => ({
  Type: 'ipset' as const,
  Backend: {},
  Acl: { V4SetName, V6SetName },
});

describe('review: agent warnings', () => {
  it('warns about each chosen set the agent did not report', () => {
    expect(agentWarnings(ipset('postern-v4', 'postern-v6'), agentRecord())).toEqual([]);
    expect(agentWarnings(ipset('gone', 'postern-v4'), agentRecord())).toEqual([
      { key: 'knocWizard.review.setNameMissing', values: { name: 'gone', agent: 'edge-1' } },
      // A v4 set is not a v6 set.
      { key: 'knocWizard.review.setNameMissing', values: { name: 'postern-v4', agent: 'edge-1' } },
    ]);
  });

  it('warns about an nftables set not reported in the backend’s table, or reported without a timeout', () => {
    const agent = agentRecord({ Capabilities: nftablesCapabilities() });
    const nftables = (V4SetName: string, V6SetName = '', Table = 'postern') => ({
      Type: 'nftables' as const,
      Backend: { Family: 'inet', Table },
      Acl: { V4SetName, V6SetName },
    });
    expect(agentWarnings(nftables('allow4', 'allow6'), agent)).toEqual([]);
    expect(agentWarnings(nftables('static4', 'allow4'), agent)).toEqual([
      { key: 'knocWizard.review.setWithoutTimeout', values: { name: 'static4' } },
      // An IPv4 set is not an IPv6 set.
      { key: 'knocWizard.review.setNameMissing', values: { name: 'allow4', agent: 'edge-1' } },
    ]);
    expect(agentWarnings(nftables('office4', '', 'filter'), agent)).toEqual([
      { key: 'knocWizard.review.setNameMissing', values: { name: 'office4', agent: 'edge-1' } },
    ]);
  });

  it('warns when the agent is too old for the type, not when its version is unknown', () => {
    const settings = { Type: 'haproxy' as const, Backend: {}, Acl: { ID: '1' } };
    expect(agentWarnings(settings, agentRecord({ Version: '1.5.0' }))).toEqual([
      { key: 'knocWizard.review.versionIncompatible', values: { type: 'haproxy', version: '1.5.0' } },
    ]);
    expect(agentWarnings(settings, agentRecord({ Version: null }))).toEqual([]);
    expect(agentWarnings(settings, null)).toEqual([]);
  });
});

describe('review: members and preview', () => {
  it('names the chosen users, SAML groups and local groups', () => {
    const users = [userRecord(), userRecord({ ID: 'u-bob', Name: 'Bob' })];
    const groups = [
      groupRecord({ ID: 'g-1', Name: 'Ops', Type: 'local' }),
      groupRecord({ ID: 'g-2', Name: 'Eng', Type: 'saml' }),
    ];
    expect(chosenMembers({ userIds: ['u-bob'], groupIds: ['g-1', 'g-2'] }, users, groups)).toEqual({
      users: ['Bob'],
      samlGroups: ['Eng'],
      localGroups: ['Ops'],
    });
  });

  it('previews the knoc with status 4, disabled for the user when an IP restriction is set', () => {
    const options = { ...defaultKnocOptions(), Description: 'SSH' };
    expect(previewEntry(options)).toMatchObject({
      Description: 'SSH',
      Status: GrantStatus.Created,
      DisableForUser: false,
    });
    const restricted = {
      ...options,
      IpExclusions: { RestrictionType: 'RFC1918' as const, RfcType: 'allow' as const, Ranges: [] },
    };
    expect(previewEntry(restricted).DisableForUser).toBe(true);
  });
});
