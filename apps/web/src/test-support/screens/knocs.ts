import { screen } from '@testing-library/react';
import { ApiKeyListResponse, KnocListResponse, type ApiKeyRecord, type KnocRecord } from '@postern/protocol';
import { allowlistKnoc, haproxyKnoc, ipsetKnoc, scriptKnoc } from '../records/knocs';
import { apiKey } from '../records/api-keys';
import { data, type FakeRoute, type TypedHandler } from '../typed-fake-api';
import { openAdminScreen } from './admin';

const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();

/**
 * Billing database (ipset, 3 users, agent edge, 2 days ago), Office allowlist (no agent, 1 user,
 * 10 days ago), Intranet (haproxy, 5 users, agent proxy-agent, an hour ago), Router (script, 0
 * users, agent edge, 30 days ago), and a passive+ child hidden from admins.
 */
export const KNOCS: KnocRecord[] = [
  ipsetKnoc({ UserCount: 3, GroupCount: 1, LastModifiedAt: daysAgo(2), LastModifiedBy: 'grace' }),
  allowlistKnoc({ UserCount: 1, LastModifiedAt: daysAgo(10), LastModifiedBy: 'ada' }),
  haproxyKnoc('unix', '/var/run/haproxy.sock', { UserCount: 5, LastModifiedAt: daysAgo(1 / 24) }),
  scriptKnoc({ UserCount: 0, LastModifiedAt: daysAgo(30) }),
  ipsetKnoc({ ID: 'k-hidden', Name: 'Hidden child', Description: 'Hidden child', HideFromAdmins: true }),
];

/** The allowlist's key, reading only that allowlist. */
export const ONE_SCOPE_KEY: ApiKeyRecord = apiKey({
  ID: 'key-1',
  Name: 'firewall poller',
  Scopes: ['allowlist.read:k-allow'],
});

/** Signs an admin in, serves the knocs, API keys and `routes`, and opens `path`. */
export function openKnocs(
  routes: Partial<Record<FakeRoute, TypedHandler>> = {},
  knocs: KnocRecord[] = KNOCS,
  path = '/admin/knocs',
) {
  return openAdminScreen(path, {
    'GET /api/admin/knocs': data(KnocListResponse, knocs),
    'GET /api/admin/api-keys': data(ApiKeyListResponse, [ONE_SCOPE_KEY]),
    ...routes,
  });
}

/** The knocs table, once loaded. */
export const knocsTable = () => screen.findByRole('table', { name: 'Knocs' }, { timeout: 5000 });
