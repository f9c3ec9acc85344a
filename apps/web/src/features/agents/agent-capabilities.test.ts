import { describe, expect, it } from 'vitest';
import { agentCapabilities, nftablesCapabilities } from '@/test-support/records/agents';
import { capabilityTexts, capabilityViews, operatingSystem } from './agent-capabilities';

describe('capabilityViews', () => {
  it('lists IPSet, nftables, Custom Script, HAProxy and Other in the spec’s order', () => {
    expect(capabilityViews(agentCapabilities()).map((view) => view.id)).toEqual([
      'ipset',
      'nftables',
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
      {
        id: 'nftables',
        available: false,
        reason: 'err.agentBackendTypeNotSupported',
        reported: false,
        command: false,
        sudo: false,
        sets: [],
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
    const [ipset, , script] = capabilityViews(agentCapabilities({ backend_types: ['haproxy'] }));
    expect(ipset).toMatchObject({ available: false, reason: 'err.agentBackendTypeNotSupported' });
    expect(script).toEqual({ id: 'script', available: false });
  });

  it('calls scripts, HAProxy and Other unavailable when disabled, socketless or absent', () => {
    const views = capabilityViews(
      agentCapabilities({ script: { enabled: false }, haproxy: { socket_location: ' ' }, backend_types: ['ipset'] }),
    );
    expect(views.slice(2)).toEqual([
      { id: 'script', available: false },
      { id: 'haproxy', available: false, socket: null },
      { id: 'other', available: false, types: [] },
    ]);
  });
});

describe('the nftables capability', () => {
  const nftablesView = (capabilities = nftablesCapabilities()) =>
    capabilityViews(capabilities).find((view) => view.id === 'nftables');

  it('is available with nft and the right to run it, listing every set with its table, type and timeout flag', () => {
    expect(nftablesView()).toEqual({
      id: 'nftables',
      available: true,
      reason: null,
      reported: true,
      command: true,
      sudo: true,
      sets: nftablesCapabilities().nftables?.sets,
    });
  });

  it.each([
    [{ command_available: false, sudo_enabled: true }, 'err.nftablesNoCommand'],
    [{ command_available: true, sudo_enabled: false }, 'err.nftablesNoSudo'],
  ])('is unavailable for %j, saying %s, as the server would refuse it', (flags, reason) => {
    const view = nftablesView(nftablesCapabilities({ nftables: { ...flags, sets: [] } }));
    expect(view).toMatchObject({
      available: false,
      reason,
      reported: true,
      command: flags.command_available,
      sudo: flags.sudo_enabled,
    });
  });

  it('is not counted among the other backend types', () => {
    const other = capabilityViews(nftablesCapabilities()).find((view) => view.id === 'other');
    expect(other).toEqual({ id: 'other', available: true, types: ['knocproxy'] });
  });

  it('makes the nftables set names searchable', () => {
    expect(capabilityTexts(nftablesCapabilities())).toEqual(expect.arrayContaining(['allow4', 'office4']));
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
