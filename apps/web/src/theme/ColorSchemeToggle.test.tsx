import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { installFakeApi } from '../test-support/fake-api';
import { renderApp } from '../test-support/render-app';
import { COLOR_SCHEME_STORAGE_KEY } from './color-scheme';

const scheme = () => document.documentElement.getAttribute('data-mantine-color-scheme');

describe('colour scheme', () => {
  it('is dark by default in the admin console', async () => {
    installFakeApi();
    renderApp('/admin');
    await waitFor(() => expect(scheme()).toBe('dark'));
  });

  it('follows the system by default in the portal (light in jsdom)', async () => {
    installFakeApi();
    renderApp('/');
    await screen.findByRole('button', { name: 'Sign in' });
    await waitFor(() => expect(scheme()).toBe('light'));
  });

  it('remembers each area’s choice separately', async () => {
    installFakeApi();
    const { user } = renderApp('/');
    await user.click(await screen.findByRole('button', { name: 'Change colour scheme' }));
    await user.click(await screen.findByRole('menuitemradio', { name: 'Dark' }));
    await waitFor(() => expect(scheme()).toBe('dark'));
    expect(window.localStorage.getItem(COLOR_SCHEME_STORAGE_KEY.user)).toBe('dark');
    expect(window.localStorage.getItem(COLOR_SCHEME_STORAGE_KEY.admin)).toBeNull();
  });

  it('uses the accent colour from the theme call', async () => {
    installFakeApi({
      'GET /api/theme': {
        body: { data: { Accent: 'iceberg', HighAccessibility: false, LogoURL: '', LightModeLogoURL: '' } },
      },
    });
    renderApp('/');
    await waitFor(() =>
      expect(document.documentElement.outerHTML).toContain(
        '--mantine-primary-color-filled: var(--mantine-color-iceberg-filled)',
      ),
    );
  });
});
