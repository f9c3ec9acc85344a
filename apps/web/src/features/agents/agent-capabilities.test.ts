import { describe, expect, it } from 'vitest';
import { agentCapabilities } from '@/test-support/records/agents';
import { capabilityTexts, capabilityViews, operatingSystem } from './agent-capabilities';

describe('capabilityViews', () => {
  it('lists IPSet, Custom Script, HAProxy and Other in the spec’s order', () => {
    expect(capabilityViews(agentCapabilities()).map((view) => view.id)).toEqual([
      'ipset',
      'script',
      'haproxy',
      'other',
    ]);
  });

  it('describes a fully capable agent', () => {
    expect(capabilityViews(agentCapabilities())).toEqual([
      {
        id: 'ipset',
        available: true,
        reason: null,
        sets: [
          { name: 'postern-v4', family: 'inet' },
          { name: 'postern-v6', family: 'inet6' },
        ],
      },
      { id: 'script', available: true },
      { id: 'haproxy', available: true, socket: '/var/run/haproxy.sock' },
      { id: 'other', available: true, types: ['knocproxy'] },
    ]);
  });

  it.each([
    [{ command_available: false, sudo_enabled: true }, 'err.ipsetNoCommand'],
    [{ command_available: false, sudo_enabled: false }, 'err.ipsetNoCommand'],
    [{ command_available: true, sudo_enabled: false }, 'err.ipsetNoSudo'],
  ])('calls IPSet unavailable for %j, saying %s', (flags, reason) => {
    const [ipset] = capabilityViews(agentCapabilities({ ipset: { ...flags, ipsets: [] } }));
    expect(ipset).toEqual({ id: 'ipset', available: false, reason, sets: [] });
  });

  it('calls IPSet and scripts unavailable when the agent’s build cannot drive them, as the server would', () => {
    const [ipset, script] = capabilityViews(agentCapabilities({ backend_types: ['haproxy'] }));
    expect(ipset).toMatchObject({ available: false, reason: 'err.agentBackendTypeNotSupported' });
    expect(script).toEqual({ id: 'script', available: false });
  });

  it('calls scripts, HAProxy and Other unavailable when disabled, socketless or absent', () => {
    const views = capabilityViews(
      agentCapabilities({ script: { enabled: false }, haproxy: { socket_location: ' ' }, backend_types: ['ipset'] }),
    );
    expect(views.slice(1)).toEqual([
      { id: 'script', available: false },
      { id: 'haproxy', available: false, socket: null },
      { id: 'other', available: false, types: [] },
    ]);
  });
});

describe('operatingSystem', () => {
  it('joins the OS name and version, or says nothing without a report', () => {
    expect(operatingSystem(agentCapabilities())).toBe('Debian GNU/Linux 12 (bookworm)');
    expect(operatingSystem(agentCapabilities({ 'os-release': { NAME: '', VERSION: '' } }))).toBeNull();
    expect(operatingSystem(null)).toBeNull();
  });
});

describe('capabilityTexts', () => {
  it('names the OS, the sets, the socket and the backend types', () => {
    expect(capabilityTexts(agentCapabilities())).toEqual([
      'Debian GNU/Linux 12 (bookworm)',
      'postern-v4',
      'postern-v6',
      '/var/run/haproxy.sock',
      'ipset',
      'haproxy',
      'script',
      'knocproxy',
    ]);
    expect(capabilityTexts(null)).toEqual([]);
  });
});
