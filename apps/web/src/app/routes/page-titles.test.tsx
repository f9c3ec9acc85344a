import { waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { installFakeApi } from '../../test-support/fake-api';
import { adminStatus, signInAdmin, signInUser, userStatus } from '../../test-support/fixtures';
import { renderApp } from '../../test-support/render-app';
import { ROUTES } from './route-table';

/** The tab title of every route, in English. */
const EXPECTED_TITLES: Record<string, string> = {
  '/': 'Sign in · Postern',
  '/home': 'Home · Postern',
  '/home/new': 'Dashboard · Postern',
  '/otp/verify': 'Two-factor verification · Postern',
  '/otp/onboard': 'Set up two-factor authentication · Postern',
  '/admin': 'Admin sign in · Postern admin',
  '/admin/otp/verify': 'Admin two-factor verification · Postern admin',
  '/admin/otp/onboard': 'Admin two-factor setup · Postern admin',
  '/admin/home': 'Home · Postern admin',
  '/admin/agents': 'Agents · Postern admin',
  '/admin/knocs': 'Knocs · Postern admin',
  '/admin/knocs/new': 'New knoc · Postern admin',
  '/admin/knocs/new/linux': 'New Linux knoc · Postern admin',
  '/admin/knocs/new/application': 'New application knoc · Postern admin',
  '/admin/knocs/new/proxy': 'New proxy knoc · Postern admin',
  '/admin/knocs/new/script': 'New script knoc · Postern admin',
  '/admin/knocs/:knocId/update': 'Update knoc · Postern admin',
  '/admin/backends': 'Backends · Postern admin',
  '/admin/acls': 'ACLs · Postern admin',
  '/admin/groups': 'Groups · Postern admin',
  '/admin/users': 'Users · Postern admin',
  '/admin/admins': 'Admins · Postern admin',
  '/admin/logs': 'Logs · Postern admin',
  '/admin/api-keys': 'API keys · Postern admin',
  '/admin/settings': 'Settings · Postern admin',
};

function faviconHref(): string | null | undefined {
  return document.querySelector('link[rel~="icon"]')?.getAttribute('href');
}

describe('page titles and tab icons', () => {
  it.each(ROUTES.map((route) => [route.path, route] as const))('titles %s', async (path, route) => {
    installFakeApi({
      'GET /api/status': { body: { data: userStatus() } },
      'GET /api/admin/status': { body: { data: adminStatus() } },
    });
    if (route.requiresUserLogin) signInUser();
    if (route.requiresAdminLogin) signInAdmin();
    renderApp(path.replace(':knocId', 'k1'));
    await waitFor(() => expect(document.title).toBe(EXPECTED_TITLES[path]));
  });

  it('uses the admin tab icon in the admin section', async () => {
    installFakeApi();
    renderApp('/admin');
    await waitFor(() => expect(faviconHref()).toBe('/favicon-admin.svg'));
  });

  it('uses the portal tab icon outside the admin section', async () => {
    installFakeApi();
    renderApp('/');
    await waitFor(() => expect(faviconHref()).toBe('/favicon.svg'));
  });

  it('switches the tab icon back when leaving the admin section', async () => {
    installFakeApi();
    const { user, findByRole } = renderApp('/admin');
    await waitFor(() => expect(faviconHref()).toBe('/favicon-admin.svg'));
    await user.click(await findByRole('link', { name: 'Back to user sign in' }));
    await waitFor(() => expect(faviconHref()).toBe('/favicon.svg'));
  });
});
