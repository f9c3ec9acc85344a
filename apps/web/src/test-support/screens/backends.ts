import { screen } from '@testing-library/react';
import { AgentListResponse, BackendListResponse, type AgentRecord, type BackendRecord } from '@postern/protocol';
import { agentRecord, newAgentRecord } from '../records/agents';
import { backendRecord, fortiosBackendRecord } from '../records/backends';
import { data, type FakeRoute, type TypedHandler } from '../typed-fake-api';
import { openAdminScreen } from './admin';

/** Load balancer (HAProxy on edge-1), Firewall (FortiGate) and Published (allowlist, no agent). */
export const BACKENDS: BackendRecord[] = [
  backendRecord(),
  fortiosBackendRecord({ LastModifiedAt: '2026-02-01T00:00:00.000Z' }),
  backendRecord({
    ID: 'b-list',
    Name: 'Published',
    Type: 'allowlist',
    AgentID: '00000000-0000-0000-0000-000000000000',
    AgentName: '',
    Config: { allowlist: {} },
  }),
];

/** edge-1 (ipset, HAProxy, scripts, knocproxy, reporting /run/haproxy/admin.sock) and one never connected. */
export const AGENTS: AgentRecord[] = [
  agentRecord({
    Capabilities: {
      ...agentRecord().Capabilities!,
      haproxy: { socket_location: '/run/haproxy/admin.sock' },
    },
  }),
  newAgentRecord(),
];

/** Signs an admin in, serves backends, agents and `routes`, and opens the Backends screen. */
export function openBackends(routes: Partial<Record<FakeRoute, TypedHandler>> = {}, backends = BACKENDS) {
  return openAdminScreen('/admin/backends', {
    'GET /api/admin/backends': data(BackendListResponse, backends),
    'GET /api/admin/agents': data(AgentListResponse, AGENTS),
    ...routes,
  });
}

/** The backends table, once loaded. */
export const backendsTable = () => screen.findByRole('table', { name: 'Backends' }, { timeout: 5000 });
