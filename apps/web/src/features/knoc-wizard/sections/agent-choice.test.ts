import { describe, expect, it } from 'vitest';
import { ErrorCodes } from '@postern/protocol';
import { agentCapabilities, agentRecord, newAgentRecord } from '@/test-support/records/agents';
import { agentChoices, autoPickedAgent, VERSION_TOO_OLD_KEY } from './agent-choice';

const capable = agentRecord();
const never = newAgentRecord();
const noSudo = agentRecord({
  ID: 'a-nosudo',
  Name: 'nosudo',
  Capabilities: agentCapabilities({ ipset: { command_available: true, sudo_enabled: false, ipsets: [] } }),
});
const noCommand = agentRecord({
  ID: 'a-nocmd',
  Name: 'nocmd',
  Capabilities: agentCapabilities({ ipset: { command_available: false, sudo_enabled: true, ipsets: [] } }),
});
const noHaproxy = agentRecord({
  ID: 'a-plain',
  Name: 'plain',
  Capabilities: agentCapabilities({ backend_types: ['ipset'] }),
});
const old = agentRecord({ ID: 'a-old', Name: 'old', Version: '1.5.2' });
const unknownVersion = agentRecord({ ID: 'a-unknown', Name: 'unknown', Version: null });

describe('agent choices', () => {
  it('disables agents that cannot drive the type, with the reason', () => {
    const reasons = agentChoices([capable, never, noSudo, noCommand, noHaproxy], 'ipset').map((c) => c.reasonKey);
    expect(reasons).toEqual([
      null,
      ErrorCodes.agentNeverConnected,
      ErrorCodes.ipsetNoSudo,
      ErrorCodes.ipsetNoCommand,
      null,
    ]);
    expect(agentChoices([noHaproxy], 'haproxy')[0]?.reasonKey).toBe(ErrorCodes.agentBackendTypeNotSupported);
  });

  it('keeps an agent too old selectable with a warning flag, unless the wizard requires the version', () => {
    expect(agentChoices([old], 'ipset')[0]).toMatchObject({ reasonKey: null, versionCompatible: false });
    expect(agentChoices([old], 'script', { requireVersion: true })[0]?.reasonKey).toBe(VERSION_TOO_OLD_KEY);
    expect(agentChoices([unknownVersion], 'script', { requireVersion: true })[0]).toMatchObject({
      reasonKey: null,
      versionCompatible: true,
    });
  });

  it('picks the agent on its own only when exactly one can be chosen', () => {
    expect(autoPickedAgent(agentChoices([capable, never, noSudo], 'ipset'))).toBe(capable.ID);
    expect(autoPickedAgent(agentChoices([capable, old], 'ipset'))).toBeNull();
    expect(autoPickedAgent(agentChoices([never], 'ipset'))).toBeNull();
    expect(autoPickedAgent(agentChoices([capable, old], 'script', { requireVersion: true }))).toBe(capable.ID);
  });
});
