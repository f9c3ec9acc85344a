import type { AclEntry, Theme, UserStatus } from '@postern/protocol';
import { installFakeApi, type FakeHandler } from '../fake-api';
import { aclEntry, signInUser, userStatus } from '../fixtures';
import { renderApp } from '../render-app';

/** `count` ACLs named "Service 1" … in the default category. */
export function services(count: number, overrides: (index: number) => Partial<AclEntry> = () => ({})): AclEntry[] {
  return Array.from({ length: count }, (_, index) =>
    aclEntry({ ACLID: `svc-${index + 1}`, Description: `Service ${index + 1}`, ...overrides(index) }),
  );
}

/** GET /api/theme with some fields changed. */
export function themeAnswer(overrides: Partial<Theme> = {}) {
  return {
    body: { data: { Accent: 'grape', HighAccessibility: false, LogoURL: '', LightModeLogoURL: '', ...overrides } },
  };
}

/** Options of {@link openDashboard}. */
export interface DashboardOptions {
  status?: Partial<UserStatus>;
  routes?: Record<string, FakeHandler>;
  path?: string;
}

/** A signed-in user (NewUserDashboard on) at /home/new with these ACLs. */
export function openDashboard(
  acls: AclEntry[],
  { status = {}, routes = {}, path = '/home/new' }: DashboardOptions = {},
) {
  const api = installFakeApi({
    'GET /api/status': { body: { data: userStatus({ NewUserDashboard: true, ACLs: acls, ...status }) } },
    ...routes,
  });
  signInUser({ NewUserDashboard: true });
  return { api, ...renderApp(path) };
}
