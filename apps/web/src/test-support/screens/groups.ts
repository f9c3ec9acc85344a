import { screen } from '@testing-library/react';
import { GroupListResponse, KnocListResponse, UserListResponse, type GroupRecord } from '@postern/protocol';
import { groupRecord } from '../records/groups';
import { knocRecord, userRecord } from '../fixtures';
import { data, type FakeRoute, type TypedHandler } from '../typed-fake-api';
import { openAdminScreen } from './admin';

/** Operations (local, 2 knocs, 1 user), Engineering (SAML, 3 users), and a dynamic one. */
export const GROUPS: GroupRecord[] = [
  groupRecord({ ACLIDs: ['k-db', 'k-vpn'], UserIDs: ['u-ada'] }),
  groupRecord({
    ID: 'g-eng',
    Name: 'Engineering',
    Description: 'From the IdP',
    Type: 'saml',
    ACLIDs: [],
    UserIDs: ['u-sam', 'u-x', 'u-y'],
  }),
  groupRecord({ ID: 'g-dyn', Name: 'contractors', Description: '', Type: 'dynamic', ACLIDs: ['k-db'], UserIDs: [] }),
];

export const KNOCS = [
  knocRecord(),
  knocRecord({ ID: 'k-vpn', Name: 'VPN', Description: 'Admin VPN' }),
  knocRecord({ ID: 'k-child', Name: 'child', Description: 'helper', HideFromAdmins: true }),
];

export const USERS = [
  userRecord(),
  userRecord({ ID: 'u-bob', Name: 'Bob', UserName: 'bob', AuthType: 'LDAP' }),
  userRecord({ ID: 'u-sam', Name: 'Sam', UserName: 'sam', AuthType: 'SAML' }),
];

/** Signs an admin in, serves the groups, knocs and users and `routes`, and opens the Groups screen. */
export function openGroups(routes: Partial<Record<FakeRoute, TypedHandler>> = {}, groups: GroupRecord[] = GROUPS) {
  return openAdminScreen('/admin/groups', {
    'GET /api/admin/groups': data(GroupListResponse, groups),
    'GET /api/admin/acls': data(KnocListResponse, KNOCS),
    'GET /api/admin/users': data(UserListResponse, USERS),
    ...routes,
  });
}

/** The groups table, once loaded. */
export const groupsTable = () => screen.findByRole('table', { name: 'Groups' }, { timeout: 5000 });
