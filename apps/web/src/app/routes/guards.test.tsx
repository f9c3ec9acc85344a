import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { installFakeApi } from '../../test-support/fake-api';
import { adminStatus, signInAdmin, signInUser, userStatus } from '../../test-support/fixtures';
import { currentPath, renderApp } from '../../test-support/render-app';
import { SESSION_KEYS } from '../../lib/session/session-store';
import { ROUTES } from './route-table';

/** A concrete URL for a route pattern. */
function concrete(path: string): string {
  return path.replace(':knocId', '0190c0de-0000-7000-8000-000000000001');
}

const userRoutes = ROUTES.filter((route) => route.requiresUserLogin).map((route) => concrete(route.path));
const adminRoutes = ROUTES.filter((route) => route.requiresAdminLogin).map((route) => concrete(route.path));
const adminLoginRoutes = ROUTES.filter((route) => route.isLogin && route.area === 'admin').map((route) => route.path);

async function expectPath(path: string) {
  await waitFor(() => expect(currentPath()).toBe(path));
}

describe('route guards', () => {
  it('lists every route of the spec exactly once', () => {
    expect(ROUTES.map((route) => route.path).sort()).toEqual(
      [
        '/',
        '/home',
        '/home/new',
        '/otp/verify',
        '/otp/onboard',
        '/admin',
        '/admin/otp/verify',
        '/admin/otp/onboard',
        '/admin/home',
        '/admin/agents',
        '/admin/knocs',
        '/admin/knocs/new',
        '/admin/knocs/new/linux',
        '/admin/knocs/new/application',
        '/admin/knocs/new/proxy',
        '/admin/knocs/new/script',
        '/admin/knocs/:knocId/update',
        '/admin/backends',
        '/admin/acls',
        '/admin/groups',
        '/admin/users',
        '/admin/admins',
        '/admin/logs',
        '/admin/api-keys',
        '/admin/settings',
      ].sort(),
    );
  });

  it.each(userRoutes)('sends a visitor without a user session from %s to the login', async (path) => {
    installFakeApi();
    renderApp(path);
    await expectPath('/');
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign in to Postern' })).toBeInTheDocument();
  });

  it.each(adminRoutes)('sends a visitor without an admin session from %s to the admin login', async (path) => {
    installFakeApi();
    renderApp(path);
    await expectPath('/admin');
    expect(await screen.findByRole('heading', { level: 1, name: 'Postern admin console' })).toBeInTheDocument();
  });

  it.each(userRoutes)('shows %s to a user whose session is in session storage', async (path) => {
    installFakeApi({ 'GET /api/status': { body: { data: userStatus() } } });
    signInUser();
    renderApp(path);
    expect(await screen.findByText('Hello, Ada Lovelace')).toBeInTheDocument();
    expect(currentPath()).toBe(path);
  });

  it.each(adminRoutes)('shows %s inside the admin shell to a signed-in admin', async (path) => {
    installFakeApi({ 'GET /api/admin/status': { body: { data: adminStatus() } } });
    signInAdmin();
    renderApp(path);
    expect(await screen.findByRole('navigation', { name: 'Admin navigation' })).toBeInTheDocument();
    expect(await screen.findAllByRole('heading', { level: 1 })).toHaveLength(1);
    expect(currentPath()).toBe(path);
  });

  it('asks the server once when session storage is empty, and stores the session it confirms', async () => {
    const api = installFakeApi({ 'GET /api/status': { body: { data: userStatus({ Name: 'Tab Two' }) } } });
    renderApp('/home');
    expect(await screen.findByText('Hello, Tab Two')).toBeInTheDocument();
    expect(currentPath()).toBe('/home');
    expect(JSON.parse(window.sessionStorage.getItem(SESSION_KEYS.user) ?? 'null')).toMatchObject({ Name: 'Tab Two' });
    expect(api.calls('GET /api/status')).toHaveLength(1);
  });

  it('lets an admin in when the server confirms a session the tab did not remember', async () => {
    installFakeApi({ 'GET /api/admin/status': { body: { data: adminStatus({ Name: 'Other Tab' }) } } });
    renderApp('/admin/agents');
    expect(await screen.findByText('Other Tab')).toBeInTheDocument();
    expect(currentPath()).toBe('/admin/agents');
    expect(window.sessionStorage.getItem(SESSION_KEYS.admin)).toContain('Other Tab');
  });

  it('sends unknown /admin paths to the admin home', async () => {
    installFakeApi({ 'GET /api/admin/status': { body: { data: adminStatus() } } });
    signInAdmin();
    renderApp('/admin/no-such-screen');
    await expectPath('/admin/home');
  });

  it('sends unknown /admin paths on to the admin login when signed out', async () => {
    installFakeApi();
    renderApp('/admin/no/such/screen');
    await expectPath('/admin');
  });

  it.each(['/no-such-page', '/home/old', '/admins'])('sends the unknown path %s to the login', async (path) => {
    installFakeApi();
    renderApp(path);
    await expectPath('/');
  });

  it.each([
    [true, '/home/new'],
    [false, '/home'],
  ])('sends a signed-in user at the login (NewUserDashboard %s) to %s', async (newDashboard, target) => {
    installFakeApi({ 'GET /api/status': { body: { data: userStatus({ NewUserDashboard: newDashboard }) } } });
    signInUser({ NewUserDashboard: newDashboard });
    renderApp('/');
    await expectPath(target);
  });

  it.each(adminLoginRoutes)('sends a signed-in admin at %s to the admin home', async (path) => {
    installFakeApi({ 'GET /api/admin/status': { body: { data: adminStatus() } } });
    signInAdmin();
    renderApp(path);
    await expectPath('/admin/home');
  });

  it('keeps an admin who still owes the second factor on its screen', async () => {
    installFakeApi();
    signInAdmin({ TotpEnabled: true, AdminTotpVerified: true });
    window.sessionStorage.setItem(SESSION_KEYS.adminSecondFactor, '/admin/otp/verify');
    renderApp('/admin/agents');
    await expectPath('/admin/otp/verify');
    expect(await screen.findByRole('heading', { level: 1, name: 'Admin two-factor verification' })).toBeVisible();
  });
});
