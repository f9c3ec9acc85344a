import type { BackendRecord } from '@postern/protocol';
import { agentRecord } from './agents';

/** Test data only: an HAProxy backend on the fixture agent edge-1. */
export function backendRecord(overrides: Partial<BackendRecord> = {}): BackendRecord {
  const agent = agentRecord();
  return {
    ID: 'b-lb',
    Name: 'Load balancer',
    AgentID: agent.ID,
    AgentName: agent.Name,
    Type: 'haproxy',
    Config: { haproxy: { Protocol: 'unix', Address: '/var/run/haproxy.sock' } },
    LastModifiedAt: '2026-01-01T00:00:00.000Z',
    LastModifiedBy: 'grace',
    ...overrides,
  };
}

/** Test data only: a FortiGate backend (its token read back as RECORDED) without an agent check. */
export function fortiosBackendRecord(overrides: Partial<BackendRecord> = {}): BackendRecord {
  return backendRecord({
    ID: 'b-fw',
    Name: 'Firewall',
    Type: 'fortios',
    Config: {
      fortios: { Url: 'https://fw-a.example.com', Insecure: false, Bearer: 'RECORDED', Prefix: 'kk_', VDOM: '' },
    },
    ...overrides,
  });
}
