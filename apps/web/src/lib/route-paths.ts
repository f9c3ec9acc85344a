import type { Translation } from '../i18n/locales/en';

/** Every screen's id; its page name is the translation `route.<id>`. */
export type RouteId = keyof Translation['route'];

/**
 * Every screen's path (spec §2), the only place paths are written. It is kept apart from the route
 * table (app/routes/route-table.ts), which imports every page: a feature or a page that links to
 * another screen needs its path, and importing it through the table would close an import circle
 * (table → page → feature → table).
 */
export const ROUTE_PATHS = {
  login: '/',
  home: '/home',
  dashboard: '/home/new',
  twoFactor: '/otp/verify',
  twoFactorOnboard: '/otp/onboard',

  adminLogin: '/admin',
  adminTwoFactor: '/admin/otp/verify',
  adminTwoFactorOnboard: '/admin/otp/onboard',
  adminHome: '/admin/home',
  agents: '/admin/agents',
  knocs: '/admin/knocs',
  knocsNew: '/admin/knocs/new',
  knocsNewLinux: '/admin/knocs/new/linux',
  knocsNewApplication: '/admin/knocs/new/application',
  knocsNewProxy: '/admin/knocs/new/proxy',
  knocsNewScript: '/admin/knocs/new/script',
  knocUpdate: '/admin/knocs/:knocId/update',
  backends: '/admin/backends',
  acls: '/admin/acls',
  groups: '/admin/groups',
  users: '/admin/users',
  admins: '/admin/admins',
  logs: '/admin/logs',
  apiKeys: '/admin/api-keys',
  settings: '/admin/settings',
} as const satisfies Record<RouteId, string>;

/** The path of the screen `id` (a pattern, for the few with parameters: fill it with generatePath). */
export function routePath(id: RouteId): string {
  return ROUTE_PATHS[id];
}
