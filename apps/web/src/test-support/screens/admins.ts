import { screen } from '@testing-library/react';
import { AdminListResponse, PasskeyListResponse, type AdminRecord } from '@postern/protocol';
import { adminRecord } from '../records/admins';
import { hoursAgo } from '../time';
import { data, type FakeRoute, type TypedHandler } from '../typed-fake-api';
import { openAdminScreen } from './admin';

/** Grace (signed in), Ada (LDAP, sign-in disabled, never signed in), Linus (SAML). */
export const ADMINS: AdminRecord[] = [
  adminRecord(),
  adminRecord({
    ID: 'admin-ada',
    Name: 'Ada Lovelace',
    UserName: 'ada',
    AuthType: 'LDAP',
    ThirdPartyAuth: { DN: 'cn=ada,dc=example' },
    LoginEnabled: false,
    LastLogin: null,
  }),
  adminRecord({
    ID: 'admin-linus',
    Name: 'Linus',
    UserName: 'linus',
    AuthType: 'SAML',
    TOTPEnabled: false,
    LastLogin: hoursAgo(5),
  }),
];

/** Signs Grace in, serves `admins` and `routes`, and opens the Admins screen. */
export function openAdmins(routes: Partial<Record<FakeRoute, TypedHandler>> = {}, admins: AdminRecord[] = ADMINS) {
  return openAdminScreen('/admin/admins', {
    'GET /api/admin/admins': data(AdminListResponse, admins),
    // The view dialog counts a local or LDAP admin's passkeys.
    'GET /api/admin/admins/:id/passkeys': data(PasskeyListResponse, []),
    ...routes,
  });
}

/** The admins table, once loaded. */
export const adminsTable = () => screen.findByRole('table', { name: 'Admins' }, { timeout: 5000 });
