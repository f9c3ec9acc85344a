import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { AuthenticationSettingsResponse } from '@postern/protocol';
import i18n from '@/i18n/i18n';
import { signInAdmin } from '@/test-support/fixtures';
import { renderApp } from '@/test-support/render-app';
import { data } from '@/test-support/typed-fake-api';
import { authenticationSettings } from '@/test-support/records/settings';
import { findSection, installSettingsApi } from '@/test-support/screens/settings';

const PUT = 'PUT /api/admin/settings/authentication';

/** Opens the Authentication section's Passkeys tab (`tab` in the current language). */
async function openPasskeysTab(tab = 'Passkeys', title = 'Authentication') {
  signInAdmin();
  const app = renderApp('/admin/settings');
  const section = await findSection(title);
  await app.user.click(await within(section).findByRole('tab', { name: tab }, { timeout: 5000 }));
  return { ...app, section };
}

describe('settings: passkey sign-in', { timeout: 30_000 }, () => {
  it('shows both switches as stored: users on, admins off by default', async () => {
    installSettingsApi();
    const { section } = await openPasskeysTab();
    expect(within(section).getByRole('switch', { name: /Users may sign in with a passkey alone/ })).toBeChecked();
    expect(within(section).getByRole('switch', { name: /Admins may sign in with a passkey alone/ })).not.toBeChecked();
  });

  it('saves the switches with the rest of the section', async () => {
    const api = installSettingsApi({
      [PUT]: data(
        AuthenticationSettingsResponse,
        authenticationSettings({ UserPasskeySignIn: false, AdminPasskeySignIn: true }),
      ),
    });
    const { user, section } = await openPasskeysTab();
    await user.click(within(section).getByRole('switch', { name: /Users may sign in/ }));
    await user.click(within(section).getByRole('switch', { name: /Admins may sign in/ }));
    await user.click(within(section).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(api.calls(PUT)).toHaveLength(1));
    expect(api.calls(PUT)[0]?.body).toMatchObject({ UserPasskeySignIn: false, AdminPasskeySignIn: true });
    expect(await screen.findByText('Settings updated')).toBeInTheDocument();
    await waitFor(() => expect(within(section).getByRole('switch', { name: /Admins may sign in/ })).toBeChecked());
  });

  it('speaks German', async () => {
    await i18n.changeLanguage('de');
    installSettingsApi();
    const { section } = await openPasskeysTab('Passkeys', 'Authentifizierung');
    expect(
      within(section).getByRole('switch', { name: /Administratoren dürfen sich allein mit einem Passkey anmelden/ }),
    ).not.toBeChecked();
  });
});
