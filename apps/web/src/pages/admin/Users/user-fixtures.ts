import { screen } from '@testing-library/react';
import {
  AdminStatusResponse,
  AgentListResponse,
  GroupListResponse,
  UserAclListResponse,
  UserListResponse,
  UserSessionListResponse,
  type LicensingSummary,
  type UserRecord,
} from '@postern/protocol';
import { adminStatus, licensingSummary, signInAdmin, userRecord as sharedUserRecord } from '@/test-support/fixtures';
import { renderApp } from '@/test-support/render-app';
import { data, installTypedFakeApi, type FakeRoute, type TypedHandler } from '@/test-support/typed-fake-api';

/** Test data for the Users screen's tests: users, a licence, and the page opened on the fake API. */

const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();

/** A licensed local user who signed in two hours ago. */
export function userRecord(overrides: Partial<UserRecord> = {}): UserRecord {
  return sharedUserRecord({
    Company: 'Analytical Engines',
    SessionLimit: 3,
    AclIds: ['acl-1'],
    LastLogin: hoursAgo(2),
    CreatedAt: hoursAgo(24 * 30),
    ActiveSession: true,
    ...overrides,
  });
}

/** Three users of different kinds; Linus is not licensed and never signed in. */
export const THREE_USERS: UserRecord[] = [
  userRecord(),
  userRecord({
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
  userRecord({
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
    userRecord({ ID: `u-${index + 1}`, Name: `User ${index + 1}`, UserName: `user-${index + 1}` }),
  );

/** The user routes answering `users` (a fixed list, or a function read on every GET). */
export function userRoutes(users: UserRecord[] | (() => UserRecord[]) = THREE_USERS) {
  return {
    'GET /api/admin/users': () => data(UserListResponse, typeof users === 'function' ? users() : users),
    'GET /api/admin/users/:id/groups': data(GroupListResponse, []),
    'GET /api/admin/users/:id/acls': data(UserAclListResponse, []),
    'GET /api/admin/users/:id/sessions': data(UserSessionListResponse, []),
  } satisfies Partial<Record<FakeRoute, TypedHandler>>;
}

/** Opens /admin/users as a signed-in admin, with `routes` over the user routes and a licence. */
export function openUsersPage(
  routes: Partial<Record<FakeRoute, TypedHandler>> = {},
  licence: LicensingSummary = licensingSummary(),
) {
  const api = installTypedFakeApi({
    'GET /api/admin/status': data(AdminStatusResponse, adminStatus({ Licensing: licence })),
    // The admin shell's banner area asks for agents (its agent-compatibility banner).
    'GET /api/admin/agents': data(AgentListResponse, []),
    ...userRoutes(),
    ...routes,
  });
  signInAdmin();
  return { api, ...renderApp('/admin/users') };
}

/** Finds the users table, allowing for the lazily loaded page. */
export const findUsersTable = () => screen.findByRole('table', { name: 'Users' }, { timeout: 5_000 });
