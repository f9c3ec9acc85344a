import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import i18n from '../../../i18n/i18n';
import { browserLocation } from '../../../lib/navigation/browser-location';
import { installFakeApi, SAML_CONFIGURED, type FakeAnswer } from '../../../test-support/fake-api';
import { renderApp } from '../../../test-support/render-app';

/** Stands in for the full-page navigation jsdom cannot do. */
function spyOnNavigation() {
  return vi.spyOn(browserLocation, 'assign').mockImplementation(() => undefined);
}

/** The system status of a server whose users' OpenID Connect provider is `name` ('' for no display name). */
function oidcStatus(name: string, saml = false): FakeAnswer {
  return {
    body: {
      data: {
        IPApi: '',
        JsBundleHash: 'build-1',
        UserSAMLConfigured: saml,
        AdminSAMLConfigured: saml,
        UserOIDCConfigured: true,
        UserOIDCProviderName: name,
        AdminOIDCConfigured: false,
        AdminOIDCProviderName: '',
      },
    },
  };
}

describe('user login with OpenID Connect', () => {
  it('offers the provider by name, folds the local form away and starts the flow with the kiosk choice', async () => {
    const api = installFakeApi({ 'GET /api/system_status': oidcStatus('Staff ID') });
    const navigation = spyOnNavigation();
    const { user } = renderApp('/');
    const button = await screen.findByRole('button', { name: 'Sign in with Staff ID' });
    // OpenID Connect alone asks for no SAML metadata.
    expect(api.calls('GET /api/saml/metadata')).toHaveLength(0);
    expect(screen.queryByRole('button', { name: 'Sign in with SSO' })).not.toBeInTheDocument();
    await waitFor(() => expect(screen.getByLabelText('Username')).not.toBeVisible());
    await user.click(screen.getByRole('checkbox', { name: /This is a public computer/ }));
    await user.click(button);
    expect(navigation).toHaveBeenCalledExactlyOnceWith('/api/login/oidc?kioskMode=true');
  });

  it('names the protocol when the provider has no name', async () => {
    installFakeApi({ 'GET /api/system_status': oidcStatus('') });
    renderApp('/');
    expect(await screen.findByRole('button', { name: 'Sign in with OpenID Connect' })).toBeVisible();
  });

  it('offers SAML and OpenID Connect side by side, Enter starting SAML', async () => {
    installFakeApi({ ...SAML_CONFIGURED, 'GET /api/system_status': oidcStatus('Staff ID', true) });
    const navigation = spyOnNavigation();
    const { user } = renderApp('/');
    expect(await screen.findByRole('button', { name: 'Sign in with SSO' })).toBeVisible();
    expect(screen.getByRole('button', { name: 'Sign in with Staff ID' })).toBeVisible();
    await user.keyboard('{Enter}');
    expect(navigation).toHaveBeenCalledExactlyOnceWith('/api/login/saml?kioskMode=false');
  });

  it('starts OpenID Connect on Enter when it is the only way offered', async () => {
    installFakeApi({ 'GET /api/system_status': oidcStatus('Staff ID') });
    const navigation = spyOnNavigation();
    const { user } = renderApp('/');
    await screen.findByRole('button', { name: 'Sign in with Staff ID' });
    await user.keyboard('{Enter}');
    expect(navigation).toHaveBeenCalledExactlyOnceWith('/api/login/oidc?kioskMode=false');
  });

  it('shows a refused sign-in the callback sent back, in German too', async () => {
    await i18n.changeLanguage('de');
    installFakeApi({ 'GET /api/system_status': oidcStatus('Staff ID') });
    renderApp('/?error=err.oidcProviderUnavailable');
    expect(
      await screen.findByText(
        'Fehler: Der OpenID-Connect-Anbieter ist nicht erreichbar; bitte später erneut versuchen',
      ),
    ).toBeVisible();
    expect(await screen.findByRole('button', { name: 'Mit Staff ID anmelden' })).toBeVisible();
  });
});
