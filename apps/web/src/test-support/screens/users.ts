import { screen } from '@testing-library/react';
import {
  AdminStatusResponse,
  AgentListResponse,
  GroupListResponse,
  PasskeyListResponse,
  UserAclListResponse,
  UserListResponse,
  UserSessionListResponse,
  type LicensingSummary,
  type UserRecord,
} from '@postern/protocol';
import { adminStatus, licensingSummary } from '../fixtures';
import { listedUser } from '../records/users';
import { hoursAgo } from '../time';
import { data, type FakeRoute, type TypedHandler } from '../typed-fake-api';
import { openAdminScreen } from './admin';

/** The Users screen's tests: its users, and the page opened on the fake API with a licence. */

/** Three users of different kinds; Linus is not licensed and never signed in. */
export const THREE_USERS: UserRecord[] = [
  listedUser(),
  listedUser({
    ID: 'u-grace',
    Name: 'grace Hopper',
    UserName: 'grace',
    Company: 'Navy',
    Duration: 60,
    AuthType: 'LDAP',
    ThirdPartyAuth: { DN: 'cn=grace,dc=navy' },
    TOTPEnabled: true,
    LastLogin: hoursAgo(30),
    ActiveSession: false,
  }),
  listedUser({
    ID: 'u-linus',
    Name: 'Linus Torvalds',
    UserName: 'linus',
    Company: 'Kernel',
    Duration: 1440,
    AuthType: 'apikey',
    Licensed: false,
    LastLogin: null,
    ActiveSession: false,
  }),
];

/** `count` local users named user-1 … user-count. */
export const manyUsers = (count: number) =>
  Array.from({ length: count }, (_, index) =>
    listedUser({ ID: `u-${index + 1}`, Name: `User ${index + 1}`, UserName: `user-${index + 1}` }),
  );

/** The user routes answering `users` (a fixed list, or a function read on every GET). */
export function userRoutes(users: UserRecord[] | (() => UserRecord[]) = THREE_USERS) {
  return {
    'GET /api/admin/users': () => data(UserListResponse, typeof users === 'function' ? users() : users),
    'GET /api/admin/users/:id/groups': data(GroupListResponse, []),
    'GET /api/admin/users/:id/acls': data(UserAclListResponse, []),
    'GET /api/admin/users/:id/sessions': data(UserSessionListResponse, []),
    'GET /api/admin/users/:id/passkeys': data(PasskeyListResponse, []),
  } satisfies Partial<Record<FakeRoute, TypedHandler>>;
}

/** Opens /admin/users as a signed-in admin, with `routes` over the user routes and a licence. */
export function openUsersPage(
  routes: Partial<Record<FakeRoute, TypedHandler>> = {},
  licence: LicensingSummary = licensingSummary(),
) {
  return openAdminScreen('/admin/users', {
    'GET /api/admin/status': data(AdminStatusResponse, adminStatus({ Licensing: licence })),
    // The admin shell's banner area asks for agents (its agent-compatibility banner).
    'GET /api/admin/agents': data(AgentListResponse, []),
    ...userRoutes(),
    ...routes,
  });
}

/** Finds the users table, allowing for the lazily loaded page. */
export const findUsersTable = () => screen.findByRole('table', { name: 'Users' }, { timeout: 5_000 });
