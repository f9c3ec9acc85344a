import { describe, expect, it } from 'vitest';
import { ErrorCodes } from '@postern/protocol';
import { agentCapabilities, agentRecord, newAgentRecord } from '@/test-support/records/agents';
import {
  agentOptions,
  autoPickedAgentId,
  backendTypeAvailability,
  backendTypeOptions,
  unsupportedAgentTypes,
} from './backend-types';

const linux = agentRecord();
const noSudo = agentRecord({
  ID: 'a2',
  Name: 'no-sudo',
  Capabilities: agentCapabilities({
    ipset: { command_available: true, sudo_enabled: false, ipsets: [] },
  }),
});
const old = agentRecord({ ID: 'a3', Name: 'old', Version: '1.5.0' });

describe('which backend types can be chosen', () => {
  it('disables a type no agent can drive, with the reason', () => {
    expect(backendTypeAvailability('fortios', [linux])).toEqual({
      disabled: true,
      reason: ErrorCodes.backendTypeNoAgents,
    });
    expect(backendTypeAvailability('ipset', [newAgentRecord()])).toMatchObject({ disabled: true });
  });

  it('enables a type one agent can drive', () => {
    expect(backendTypeAvailability('ipset', [newAgentRecord(), linux])).toEqual({ disabled: false, reason: null });
  });

  it('always enables allowlist, even without agents', () => {
    expect(backendTypeAvailability('allowlist', [])).toEqual({ disabled: false, reason: null });
    expect(
      backendTypeOptions([])
        .filter((option) => !option.disabled)
        .map((option) => option.type),
    ).toEqual(['allowlist']);
  });
});

describe('types agents report that this server cannot drive', () => {
  const reporting = (ID: string, types: string[]) =>
    agentRecord({ ID, Capabilities: agentCapabilities({ backend_types: types }) });

  it('lists each unknown type once, in name order, with the reason', () => {
    const agents = [reporting('a1', ['ipset', 'mikrotik', 'juniper']), reporting('a2', ['juniper', 'fortios'])];
    expect(unsupportedAgentTypes([...agents, newAgentRecord()])).toEqual([
      { type: 'juniper', reason: ErrorCodes.agentBackendTypeNotSupportedByServer },
      { type: 'mikrotik', reason: ErrorCodes.agentBackendTypeNotSupportedByServer },
    ]);
  });

  it('lists none when agents report only types the server knows', () => {
    expect(unsupportedAgentTypes([linux, noSudo, newAgentRecord()])).toEqual([]);
  });
});

describe('which agents can be chosen for a type', () => {
  it.each([
    [newAgentRecord(), 'ipset', ErrorCodes.agentNeverConnected],
    [noSudo, 'ipset', ErrorCodes.ipsetNoSudo],
    [linux, 'fortios', ErrorCodes.agentBackendTypeNotSupported],
    [linux, 'ipset', null],
  ] as const)('gives %s for %s the reason %s', (agent, type, reason) => {
    const [option] = agentOptions([agent], type);
    expect(option).toMatchObject({ disabled: reason !== null, reason });
  });

  it('warns about an agent older than the type needs, without disabling it', () => {
    const [option] = agentOptions([old], 'haproxy');
    expect(option).toMatchObject({ disabled: false, versionWarning: true });
    expect(agentOptions([linux], 'haproxy')[0]?.versionWarning).toBe(false);
  });

  it('picks the only capable agent, and none when several or none are', () => {
    expect(autoPickedAgentId(agentOptions([newAgentRecord(), linux, noSudo], 'ipset'))).toBe(linux.ID);
    expect(autoPickedAgentId(agentOptions([linux, old], 'haproxy'))).toBeNull();
    expect(autoPickedAgentId(agentOptions([newAgentRecord()], 'haproxy'))).toBeNull();
  });
});
