import {
  IconApi,
  IconFileText,
  IconHome,
  IconKey,
  IconServer2,
  IconSettings,
  IconShieldLock,
  IconUsers,
  IconUsersGroup,
  type Icon,
} from '@tabler/icons-react';
import type { RouteId } from '../../../lib/route-paths';

/** One sidebar entry: a route of the table and its icon. */
export interface AdminNavItem {
  routeId: RouteId;
  icon: Icon;
}

/** The sidebar of the admin console, in the spec's order (logout is added after these). */
export const ADMIN_NAV_ITEMS: readonly AdminNavItem[] = [
  { routeId: 'adminHome', icon: IconHome },
  { routeId: 'agents', icon: IconServer2 },
  { routeId: 'knocs', icon: IconShieldLock },
  { routeId: 'groups', icon: IconUsersGroup },
  { routeId: 'users', icon: IconUsers },
  { routeId: 'admins', icon: IconKey },
  { routeId: 'logs', icon: IconFileText },
  { routeId: 'apiKeys', icon: IconApi },
  { routeId: 'settings', icon: IconSettings },
];
