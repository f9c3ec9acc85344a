import { act, screen } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import i18n, { ADMIN_NAMESPACE, adminTexts } from '../../i18n/i18n';
import { installFakeApi } from '../../test-support/fake-api';
import { adminStatus, signInAdmin } from '../../test-support/fixtures';
import { renderApp } from '../../test-support/render-app';

/**
 * The admin console's texts are downloaded when the console opens (the test setup preloads them for
 * every other test). Here they start out missing, as in a browser that has just loaded the portal.
 */
describe('admin console texts', () => {
  beforeEach(() => {
    i18n.removeResourceBundle('en', ADMIN_NAMESPACE);
    i18n.removeResourceBundle('de', ADMIN_NAMESPACE);
  });

  it('are downloaded before the admin shell shows, and before a language change takes effect', async () => {
    const english = vi.spyOn(adminTexts, 'en');
    const german = vi.spyOn(adminTexts, 'de');
    installFakeApi({ 'GET /api/admin/status': { body: { data: adminStatus() } } });
    signInAdmin();
    renderApp('/admin/home');

    // The loader, never a raw key, until the texts are there.
    expect(screen.getByRole('status', { name: 'Loading…' })).toBeInTheDocument();
    expect(screen.queryByText(/adminShell\.|adminHome\./)).not.toBeInTheDocument();
    expect(await screen.findByRole('navigation', { name: 'Admin navigation' })).toBeInTheDocument();
    expect(english).toHaveBeenCalledTimes(1);
    expect(german).not.toHaveBeenCalled();

    await act(() => i18n.changeLanguage('de'));
    expect(german).toHaveBeenCalledTimes(1);
    expect(screen.getByRole('navigation', { name: 'Administrationsnavigation' })).toBeInTheDocument();
    expect(document.body).not.toHaveTextContent(/adminShell\.|adminHome\.|banners\./);
  });
});
