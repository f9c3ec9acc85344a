import { describe, expect, it } from 'vitest';
import { agentIncapability, agentVersionCompatible, versionAtLeast } from './agent-eligibility.js';
import type { AgentCapabilities } from './agents.js';
import { ErrorCodes } from './errors.js';

function capabilities(overrides: Partial<AgentCapabilities> = {}): AgentCapabilities {
  return {
    'os-release': { NAME: 'Debian GNU/Linux', VERSION: '12 (bookworm)' },
    backend_types: ['ipset', 'haproxy', 'script', 'allowlist'],
    ipset: { command_available: true, sudo_enabled: true, ipsets: [] },
    haproxy: { socket_location: '/run/haproxy.sock' },
    script: { enabled: true },
    ...overrides,
  };
}

describe('agentIncapability', () => {
  it('names each of the spec reasons, in order', () => {
    expect(agentIncapability(null, 'ipset')).toBe(ErrorCodes.agentNeverConnected);
    expect(agentIncapability(capabilities(), 'fortios')).toBe(ErrorCodes.agentBackendTypeNotSupported);
    const noCommand = capabilities({ ipset: { command_available: false, sudo_enabled: false, ipsets: [] } });
    expect(agentIncapability(noCommand, 'ipset')).toBe(ErrorCodes.ipsetNoCommand);
    const noSudo = capabilities({ ipset: { command_available: true, sudo_enabled: false, ipsets: [] } });
    expect(agentIncapability(noSudo, 'ipset')).toBe(ErrorCodes.ipsetNoSudo);
    expect(agentIncapability(capabilities({ script: { enabled: false } }), 'script')).toBe(
      ErrorCodes.agentScriptsDisabled,
    );
  });

  it('is null for a capable agent', () => {
    for (const type of ['ipset', 'haproxy', 'script'] as const)
      expect(agentIncapability(capabilities(), type)).toBeNull();
  });
});

describe('agentVersionCompatible', () => {
  it('needs 1.9.0 for Sophos and 1.6.0 otherwise; an unknown version is compatible', () => {
    expect(agentVersionCompatible('1.8.9', 'sophosutm')).toBe(false);
    expect(agentVersionCompatible('1.9.0', 'sophossfos')).toBe(true);
    expect(agentVersionCompatible('1.5.9', 'ipset')).toBe(false);
    expect(agentVersionCompatible('v1.6.0-rc.1', 'ipset')).toBe(true);
    expect(agentVersionCompatible(null, 'sophosutm')).toBe(true);
  });

  it('compares parts as numbers', () => {
    expect(versionAtLeast('1.10.0', '1.9.0')).toBe(true);
    expect(versionAtLeast('1.9', '1.9.0')).toBe(true);
    expect(versionAtLeast('not a version', '1.9.0')).toBe(true);
  });
});
