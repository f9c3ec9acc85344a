import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { browserLocation } from '../../lib/navigation/browser-location';
import { installFakeApi } from '../../test-support/fake-api';
import { adminStatus, signInAdmin, signInUser } from '../../test-support/fixtures';
import { currentPath, renderApp } from '../../test-support/render-app';
import { SESSION_KEYS } from '../../lib/session/session-store';

describe('admin shell', () => {
  it('lists the sections in a navigation landmark and marks the current one', async () => {
    installFakeApi({ 'GET /api/admin/status': { body: { data: adminStatus() } } });
    signInAdmin();
    renderApp('/admin/knocs/new/linux');
    const nav = await screen.findByRole('navigation', { name: 'Admin navigation' });
    const links = within(nav).getAllByRole('link');
    expect(links.map((link) => link.textContent)).toEqual([
      'Home',
      'Agents',
      'Knocs',
      'Groups',
      'Users',
      'Admins',
      'Logs',
      'API keys',
      'Settings',
    ]);
    expect(within(nav).getByRole('link', { name: 'Knocs' })).toHaveAttribute('aria-current', 'page');
    expect(within(nav).getByRole('link', { name: 'Home' })).not.toHaveAttribute('aria-current');
    expect(within(nav).getByRole('button', { name: 'Log out' })).toBeInTheDocument();
  });

  it('shows the product, the admin and the colour-scheme toggle in the header', async () => {
    installFakeApi({ 'GET /api/admin/status': { body: { data: adminStatus() } } });
    signInAdmin({ Name: 'Grace Hopper' });
    renderApp('/admin/knocs');
    const header = await screen.findByRole('banner');
    expect(within(header).getByText('Postern admin')).toBeInTheDocument();
    expect(within(header).getByText('Grace Hopper')).toBeInTheDocument();
    expect(within(header).getByRole('button', { name: 'Change colour scheme' })).toBeInTheDocument();
  });

  it('shows the uploaded logo in the header, as the user portal does', async () => {
    installFakeApi({
      'GET /api/admin/status': { body: { data: adminStatus() } },
      'GET /api/theme': {
        body: {
          data: {
            Accent: 'grape',
            HighAccessibility: false,
            LogoURL: '/api/branding/logo/dark?v=1',
            LightModeLogoURL: '',
          },
        },
      },
    });
    signInAdmin();
    renderApp('/admin/knocs');
    const header = await screen.findByRole('banner');
    // Postern's mark stands in until the theme has arrived.
    await waitFor(() => expect(within(header).getByRole('img', { name: 'Postern' }).tagName).toBe('IMG'));
    expect(within(header).getByRole('img', { name: 'Postern' })).toHaveAttribute('src', '/api/branding/logo/dark?v=1');
  });

  it('shows Postern’s own mark in the header when no logo was uploaded', async () => {
    installFakeApi({ 'GET /api/admin/status': { body: { data: adminStatus() } } });
    signInAdmin();
    renderApp('/admin/knocs');
    const header = await screen.findByRole('banner');
    expect((await within(header).findByRole('img', { name: 'Postern' })).tagName).toBe('svg');
  });

  it('navigates between sections', async () => {
    installFakeApi({ 'GET /api/admin/status': { body: { data: adminStatus() } } });
    signInAdmin();
    const { user } = renderApp('/admin/home');
    const nav = await screen.findByRole('navigation', { name: 'Admin navigation' });
    await user.click(within(nav).getByRole('link', { name: 'Knocs' }));
    await waitFor(() => expect(currentPath()).toBe('/admin/knocs'));
    expect(await screen.findByRole('heading', { level: 1, name: 'Knocs' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Create knoc' })).toBeInTheDocument();
  });

  it('logs out: tells the server, forgets only the admin session, returns to the admin login', async () => {
    const api = installFakeApi({ 'GET /api/admin/status': { body: { data: adminStatus() } } });
    signInAdmin();
    signInUser();
    const { user } = renderApp('/admin/knocs');
    await user.click(await screen.findByRole('button', { name: 'Log out' }));
    await waitFor(() => expect(currentPath()).toBe('/admin'));
    expect(api.calls('POST /api/admin/logout')).toHaveLength(1);
    expect(window.sessionStorage.getItem(SESSION_KEYS.admin)).toBeNull();
    expect(window.sessionStorage.getItem(SESSION_KEYS.user)).not.toBeNull();
  });

  it('goes on to the identity provider’s logout page when the server names one', async () => {
    const endSession = 'https://id.example.com/logout?id_token_hint=t&post_logout_redirect_uri=x';
    const api = installFakeApi({
      'GET /api/admin/status': { body: { data: adminStatus() } },
      'POST /api/admin/logout': { body: { data: { EndSessionURL: endSession } } },
    });
    const navigation = vi.spyOn(browserLocation, 'assign').mockImplementation(() => undefined);
    signInAdmin();
    const { user } = renderApp('/admin/knocs');
    await user.click(await screen.findByRole('button', { name: 'Log out' }));
    await waitFor(() => expect(navigation).toHaveBeenCalledExactlyOnceWith(endSession));
    expect(api.calls('POST /api/admin/logout')).toHaveLength(1);
    expect(window.sessionStorage.getItem(SESSION_KEYS.admin)).toBeNull();
  });

  it('follows no logout URL that is not a web address, returning to the login instead', async () => {
    installFakeApi({
      'GET /api/admin/status': { body: { data: adminStatus() } },
      'POST /api/admin/logout': { body: { data: { EndSessionURL: 'javascript:alert(1)' } } },
    });
    const navigation = vi.spyOn(browserLocation, 'assign').mockImplementation(() => undefined);
    signInAdmin();
    const { user } = renderApp('/admin/knocs');
    await user.click(await screen.findByRole('button', { name: 'Log out' }));
    await waitFor(() => expect(currentPath()).toBe('/admin'));
    expect(navigation).not.toHaveBeenCalled();
  });
});
