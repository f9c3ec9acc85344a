import { lazy, Suspense } from 'react';
import { Navigate, Route, Routes } from 'react-router';
import { FullPageLoader } from '../../components/FullPageLoader';
import { ADMIN_HOME_PATH } from '../../features/auth/landing';
import { loadAdminTexts } from '../../i18n/i18n';
import { AdminLoginGate, RequireAdminSession, RequireUserSession, UserLoginGate } from './guards';
import { RoutePage } from './RoutePage';
import { ROUTES } from './route-table';
import type { AppRoute } from './route-types';

/**
 * The admin shell and every screen in it, shown once both its code and the admin console's texts are
 * downloaded (in parallel; the loader shows meanwhile), so no screen flashes raw translation keys.
 */
const AdminShell = lazy(() =>
  Promise.all([import('../../layouts/AdminShell/AdminShell'), loadAdminTexts()]).then(([shell]) => shell),
);

/** A route's element: its screen wrapped in the guard its flags ask for. */
function guarded(route: AppRoute) {
  const page = <RoutePage route={route} />;
  if (route.requiresUserLogin) return <RequireUserSession>{page}</RequireUserSession>;
  if (route.isLogin)
    return route.area === 'admin' ? <AdminLoginGate>{page}</AdminLoginGate> : <UserLoginGate>{page}</UserLoginGate>;
  // Admin-only routes are guarded once, around the shell that holds them.
  return page;
}

/**
 * The router, built from the route table: admin-only screens sit inside the admin shell behind one
 * guard; unknown /admin paths go to the admin home, anything else unknown to the login.
 */
export function AppRoutes() {
  const outside = ROUTES.filter((route) => !route.requiresAdminLogin);
  const inShell = ROUTES.filter((route) => route.requiresAdminLogin);

  return (
    <Routes>
      {outside.map((route) => (
        <Route key={route.id} path={route.path} element={guarded(route)} />
      ))}
      <Route
        element={
          <RequireAdminSession>
            <Suspense fallback={<FullPageLoader />}>
              <AdminShell />
            </Suspense>
          </RequireAdminSession>
        }
      >
        {inShell.map((route) => (
          <Route key={route.id} path={route.path} element={guarded(route)} />
        ))}
      </Route>
      <Route path="/admin/*" element={<Navigate to={ADMIN_HOME_PATH} replace />} />
      <Route path="*" element={<Navigate to="/" replace />} />
    </Routes>
  );
}
