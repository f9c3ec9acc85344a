import { lazy, type ComponentType } from 'react';
import { areaOf } from '../../lib/area';
import type { AppRoute, RouteId, RoutePageProps } from './route-types';
import LoginPage from '../../pages/user/Login/Page';
import { HomePage, NewUserDashboardPage } from './user-pages';
import TwoFactorPage from '../../pages/user/TwoFactor/Page';

// The admin console is loaded on demand, so the portal's first download does not carry it.
const AdminLoginPage = lazy(() => import('../../pages/admin/AdminLogin/Page'));
const AdminHomePage = lazy(() => import('../../pages/admin/AdminHome/Page'));
const AdminTwoFactorPage = lazy(() => import('../../pages/admin/AdminTwoFactor/Page'));
const AdminTwoFactorOnboardPage = lazy(() => import('../../pages/admin/AdminTwoFactorOnboard/Page'));
const AdminAgentsPage = lazy(() => import('../../pages/admin/Agents/Page'));
const AdminUsersPage = lazy(() => import('../../pages/admin/Users/Page'));
const AdminAdminsPage = lazy(() => import('../../pages/admin/Admins/Page'));
const AdminGroupsPage = lazy(() => import('../../pages/admin/Groups/Page'));
const AdminApiKeysPage = lazy(() => import('../../pages/admin/ApiKeys/Page'));
const AdminBackendsPage = lazy(() => import('../../pages/admin/Backends/Page'));
const AdminAclsPage = lazy(() => import('../../pages/admin/Acls/Page'));
const AdminLogsPage = lazy(() => import('../../pages/admin/Logs/Page'));
const AdminSettingsPage = lazy(() => import('../../pages/admin/Settings/Page'));
const AdminKnocsPage = lazy(() => import('../../pages/admin/Knocs/Page'));
const AdminKnocNewPage = lazy(() => import('../../pages/admin/KnocNew/Page'));
const AdminKnocWizardPage = lazy(() => import('../../pages/admin/KnocWizard/Page'));
const AdminKnocUpdatePage = lazy(() => import('../../pages/admin/KnocUpdate/Page'));
// Enrolment is rare and carries the QR code library: only those who need it download it.
const TwoFactorOnboardPage = lazy(() => import('../../pages/user/TwoFactorOnboard/Page'));

type Flags = Pick<AppRoute, 'requiresUserLogin' | 'requiresAdminLogin' | 'isLogin'>;
const PUBLIC: Flags = { requiresUserLogin: false, requiresAdminLogin: false, isLogin: false };
const LOGIN: Flags = { ...PUBLIC, isLogin: true };
const USER: Flags = { ...PUBLIC, requiresUserLogin: true };
const ADMIN: Flags = { ...PUBLIC, requiresAdminLogin: true };

function route(id: RouteId, path: string, flags: Flags, Page: ComponentType<RoutePageProps>): AppRoute {
  return { id, path, area: areaOf(path), ...flags, Page };
}

/** The complete route table, user side then admin side. Unknown paths are handled by AppRoutes. */
export const ROUTES: readonly AppRoute[] = [
  route('login', '/', LOGIN, LoginPage),
  route('home', '/home', USER, HomePage),
  route('dashboard', '/home/new', USER, NewUserDashboardPage),
  route('twoFactor', '/otp/verify', PUBLIC, TwoFactorPage),
  route('twoFactorOnboard', '/otp/onboard', PUBLIC, TwoFactorOnboardPage),

  route('adminLogin', '/admin', LOGIN, AdminLoginPage),
  route('adminTwoFactor', '/admin/otp/verify', LOGIN, AdminTwoFactorPage),
  route('adminTwoFactorOnboard', '/admin/otp/onboard', LOGIN, AdminTwoFactorOnboardPage),
  route('adminHome', '/admin/home', ADMIN, AdminHomePage),
  route('agents', '/admin/agents', ADMIN, AdminAgentsPage),
  route('knocs', '/admin/knocs', ADMIN, AdminKnocsPage),
  route('knocsNew', '/admin/knocs/new', ADMIN, AdminKnocNewPage),
  route('knocsNewLinux', '/admin/knocs/new/linux', ADMIN, AdminKnocWizardPage),
  route('knocsNewApplication', '/admin/knocs/new/application', ADMIN, AdminKnocWizardPage),
  route('knocsNewProxy', '/admin/knocs/new/proxy', ADMIN, AdminKnocWizardPage),
  route('knocsNewScript', '/admin/knocs/new/script', ADMIN, AdminKnocWizardPage),
  route('knocUpdate', '/admin/knocs/:knocId/update', ADMIN, AdminKnocUpdatePage),
  route('backends', '/admin/backends', ADMIN, AdminBackendsPage),
  route('acls', '/admin/acls', ADMIN, AdminAclsPage),
  route('groups', '/admin/groups', ADMIN, AdminGroupsPage),
  route('users', '/admin/users', ADMIN, AdminUsersPage),
  route('admins', '/admin/admins', ADMIN, AdminAdminsPage),
  route('logs', '/admin/logs', ADMIN, AdminLogsPage),
  route('apiKeys', '/admin/api-keys', ADMIN, AdminApiKeysPage),
  route('settings', '/admin/settings', ADMIN, AdminSettingsPage),
];

/** The route with this id (the table is the only place paths are written). */
export function routeById(id: RouteId): AppRoute {
  const found = ROUTES.find((candidate) => candidate.id === id);
  if (found === undefined) throw new Error(`No route ${id}`);
  return found;
}
