import type { AgentCapabilities, AgentRecord } from '@postern/protocol';

/** Test data only: what a Debian host with ipset, HAProxy and scripts reports in its hello. */
export function agentCapabilities(overrides: Partial<AgentCapabilities> = {}): AgentCapabilities {
  return {
    'os-release': { NAME: 'Debian GNU/Linux', VERSION: '12 (bookworm)' },
    ipset: {
      command_available: true,
      sudo_enabled: true,
      ipsets: [
        { name: 'postern-v4', address_family: 'inet' },
        { name: 'postern-v6', address_family: 'inet6' },
      ],
    },
    script: { enabled: true },
    haproxy: { socket_location: '/var/run/haproxy.sock' },
    backend_types: ['ipset', 'haproxy', 'script', 'knocproxy'],
    ...overrides,
  };
}

/**
 * Test data only: what a Debian host with nftables reports: table inet postern with an IPv4 and an
 * IPv6 set with `flags timeout`, an IPv4 set without it, and table ip filter with one IPv4 set.
 */
export function nftablesCapabilities(overrides: Partial<AgentCapabilities> = {}): AgentCapabilities {
  return agentCapabilities({
    nftables: {
      command_available: true,
      sudo_enabled: true,
      sets: [
        { family: 'inet', table: 'postern', name: 'allow4', type: 'ipv4_addr', timeout: true },
        { family: 'inet', table: 'postern', name: 'allow6', type: 'ipv6_addr', timeout: true },
        { family: 'inet', table: 'postern', name: 'static4', type: 'ipv4_addr', timeout: false },
        { family: 'ip', table: 'filter', name: 'office4', type: 'ipv4_addr', timeout: true },
      ],
    },
    backend_types: ['ipset', 'nftables', 'haproxy', 'script', 'knocproxy'],
    ...overrides,
  });
}

/** Test data only: a connected, up-to-date agent as GET /api/admin/agents lists it. */
export function agentRecord(overrides: Partial<AgentRecord> = {}): AgentRecord {
  return {
    ID: '0190a0b0-0000-7000-8000-000000000001',
    Name: 'edge-1',
    Token: 'tok_edge1_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
    LastSeen: new Date(Date.now() - 3 * 60_000).toISOString(),
    Version: '1.9.0',
    ExternalIP: '203.0.113.5',
    Capabilities: agentCapabilities(),
    Online: true,
    EnrolledAt: '2026-01-01T00:00:00.000Z',
    KeyFingerprint: 'SHA256:abcdefghijklmnop',
    Backends: [],
    LastModifiedAt: '2026-01-01T00:00:00.000Z',
    LastModifiedBy: 'grace',
    ...overrides,
  };
}

/** Test data only: an agent created but never connected (awaiting connection). */
export function newAgentRecord(overrides: Partial<AgentRecord> = {}): AgentRecord {
  return agentRecord({
    ID: '0190a0b0-0000-7000-8000-000000000009',
    Name: 'fresh',
    Token: 'tok_fresh_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
    LastSeen: null,
    Version: null,
    ExternalIP: null,
    Capabilities: null,
    Online: false,
    EnrolledAt: null,
    KeyFingerprint: null,
    ...overrides,
  });
}
