import { screen } from '@testing-library/react';
import {
  AgentListResponse,
  BackendListResponse,
  KnocListResponse,
  type BackendRecord,
  type KnocRecord,
} from '@postern/protocol';
import { agentRecord } from '../records/agents';
import { backendRecord } from '../records/backends';
import { knocRecord } from '../fixtures';
import { data, type FakeRoute, type TypedHandler } from '../typed-fake-api';
import { openAdminScreen } from './admin';

/** An HAProxy backend and an ipset backend, both on edge-1. */
export const BACKENDS: BackendRecord[] = [
  backendRecord(),
  backendRecord({ ID: 'b-set', Name: 'Edge sets', Type: 'ipset', Config: { ipset: {} } }),
];

/** Billing (ipset), Admin panel (HAProxy ACL 7), and a hidden passive+ child. */
export const KNOCS: KnocRecord[] = [
  knocRecord({
    BackendID: 'b-set',
    Config: { ipset: { V4SetName: 'postern-v4', V6SetName: '' } },
    LastModifiedAt: '2026-03-01T00:00:00.000Z',
  }),
  knocRecord({
    ID: 'k-admin',
    Description: 'Admin panel',
    Name: 'Admin panel',
    BackendID: 'b-lb',
    BackendType: 'haproxy',
    MaximumGrantDuration: 3600,
    Config: { haproxy: { ID: '7' } },
  }),
  knocRecord({ ID: 'k-child', Description: 'child', HideFromAdmins: true }),
];

/** Signs an admin in, serves knocs, backends, agents and `routes`, and opens the ACLs screen. */
export function openAcls(
  routes: Partial<Record<FakeRoute, TypedHandler>> = {},
  { knocs = KNOCS, backends = BACKENDS }: { knocs?: KnocRecord[]; backends?: BackendRecord[] } = {},
) {
  return openAdminScreen('/admin/acls', {
    'GET /api/admin/acls': data(KnocListResponse, knocs),
    'GET /api/admin/backends': data(BackendListResponse, backends),
    'GET /api/admin/agents': data(AgentListResponse, [agentRecord()]),
    ...routes,
  });
}

/** The ACLs table, once loaded. */
export const aclsTable = () => screen.findByRole('table', { name: 'ACLs' }, { timeout: 5000 });
