import { lazy, type ComponentType } from 'react';
import { areaOf } from '../../lib/area';
import { ROUTE_PATHS, type RouteId } from '../../lib/route-paths';
import type { AppRoute, RoutePageProps } from './route-types';
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

function route(id: RouteId, flags: Flags, Page: ComponentType<RoutePageProps>): AppRoute {
  const path = ROUTE_PATHS[id];
  return { id, path, area: areaOf(path), ...flags, Page };
}

/**
 * The complete route table, user side then admin side: each screen's guards and page, at its path
 * from lib/route-paths.ts. Unknown paths are handled by AppRoutes.
 */
export const ROUTES: readonly AppRoute[] = [
  route('login', LOGIN, LoginPage),
  route('home', USER, HomePage),
  route('dashboard', USER, NewUserDashboardPage),
  route('twoFactor', PUBLIC, TwoFactorPage),
  route('twoFactorOnboard', PUBLIC, TwoFactorOnboardPage),

  route('adminLogin', LOGIN, AdminLoginPage),
  route('adminTwoFactor', LOGIN, AdminTwoFactorPage),
  route('adminTwoFactorOnboard', LOGIN, AdminTwoFactorOnboardPage),
  route('adminHome', ADMIN, AdminHomePage),
  route('agents', ADMIN, AdminAgentsPage),
  route('knocs', ADMIN, AdminKnocsPage),
  route('knocsNew', ADMIN, AdminKnocNewPage),
  route('knocsNewLinux', ADMIN, AdminKnocWizardPage),
  route('knocsNewApplication', ADMIN, AdminKnocWizardPage),
  route('knocsNewProxy', ADMIN, AdminKnocWizardPage),
  route('knocsNewScript', ADMIN, AdminKnocWizardPage),
  route('knocUpdate', ADMIN, AdminKnocUpdatePage),
  route('backends', ADMIN, AdminBackendsPage),
  route('acls', ADMIN, AdminAclsPage),
  route('groups', ADMIN, AdminGroupsPage),
  route('users', ADMIN, AdminUsersPage),
  route('admins', ADMIN, AdminAdminsPage),
  route('logs', ADMIN, AdminLogsPage),
  route('apiKeys', ADMIN, AdminApiKeysPage),
  route('settings', ADMIN, AdminSettingsPage),
];
