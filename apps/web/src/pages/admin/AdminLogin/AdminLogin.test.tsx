import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { browserLocation } from '../../../lib/navigation/browser-location';
import { installFakeApi, SAML_CONFIGURED, SAML_METADATA_ANSWER } from '../../../test-support/fake-api';
import { adminSession, adminStatus } from '../../../test-support/fixtures';
import { currentPath, renderApp } from '../../../test-support/render-app';
import { SESSION_KEYS } from '../../../lib/session/session-store';

async function signIn(user: ReturnType<typeof renderApp>['user']) {
  await user.type(await screen.findByLabelText('Username'), 'grace');
  await user.type(screen.getByLabelText('Password', { selector: 'input' }), 'admin-password');
  await user.click(screen.getByRole('button', { name: 'Sign in' }));
}

describe('admin login', () => {
  it('stores the admin session and opens the admin home', async () => {
    const session = adminSession();
    const api = installFakeApi({
      'POST /api/admin/login': { body: { data: session } },
      'GET /api/admin/status': { body: { data: adminStatus() } },
    });
    const { user } = renderApp('/admin');
    await signIn(user);
    await waitFor(() => expect(currentPath()).toBe('/admin/home'));
    expect(api.calls('POST /api/admin/login')[0]?.body).toEqual({ UserName: 'grace', Password: 'admin-password' });
    expect(JSON.parse(window.sessionStorage.getItem(SESSION_KEYS.admin) ?? 'null')).toEqual(session);
    expect(await screen.findByRole('heading', { level: 1, name: 'Home' })).toBeInTheDocument();
  });

  it.each([
    [{ TotpEnabled: true, AdminTotpVerified: true }, '/admin/otp/verify'],
    [{ TotpEnabled: true, AdminTotpVerified: false }, '/admin/otp/onboard'],
    // A passkey is a second factor already: the admin verifies with it rather than enrolling one.
    [{ TotpEnabled: true, AdminTotpVerified: false, HasPasskeys: true }, '/admin/otp/verify'],
  ])('sends an admin with %o to %s', async (totp, target) => {
    installFakeApi({ 'POST /api/admin/login': { body: { data: adminSession(totp) } } });
    const { user } = renderApp('/admin');
    await signIn(user);
    await waitFor(() => expect(currentPath()).toBe(target));
    expect(window.sessionStorage.getItem(SESSION_KEYS.adminSecondFactor)).toBe(target);
  });

  it('shows a refusal inside the form', async () => {
    installFakeApi({ 'POST /api/admin/login': { status: 403, body: { Err: 'err.loginNotPermitted' } } });
    const { user } = renderApp('/admin');
    await signIn(user);
    expect(await screen.findByRole('alert')).toHaveTextContent('Error: Login not permitted');
    expect(currentPath()).toBe('/admin');
  });

  it('has no public-computer box', async () => {
    installFakeApi();
    renderApp('/admin');
    await screen.findByRole('button', { name: 'Sign in' });
    expect(screen.queryByRole('checkbox')).not.toBeInTheDocument();
  });
});

describe('admin login with single sign-on', () => {
  it('asks for no admin metadata when the server says admin SAML is not set up', async () => {
    const api = installFakeApi();
    renderApp('/admin');
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeVisible();
    await waitFor(() => expect(api.calls('GET /api/system_status').length).toBeGreaterThan(0));
    expect(api.calls('GET /api/admin/saml/metadata')).toHaveLength(0);
    expect(api.calls('GET /api/saml/metadata')).toHaveLength(0);
    expect(screen.queryByRole('button', { name: 'Sign in with SSO' })).not.toBeInTheDocument();
  });

  it('offers no SSO when admin SAML is set up but its metadata answers 404', async () => {
    const api = installFakeApi({
      ...SAML_CONFIGURED,
      'GET /api/admin/saml/metadata': { status: 404, body: { Err: 'err.samlNotConfigured' } },
    });
    renderApp('/admin');
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeVisible();
    await waitFor(() => expect(api.calls('GET /api/admin/saml/metadata')).toHaveLength(1));
    expect(screen.queryByRole('button', { name: 'Sign in with SSO' })).not.toBeInTheDocument();
  });

  it('shows SSO with the local form folded away, and starts admin SSO from the button', async () => {
    installFakeApi(SAML_CONFIGURED);
    const navigation = vi.spyOn(browserLocation, 'assign').mockImplementation(() => undefined);
    const { user } = renderApp('/admin');
    const button = await screen.findByRole('button', { name: 'Sign in with SSO' });
    await waitFor(() => expect(screen.getByLabelText('Username')).not.toBeVisible());
    await user.click(button);
    expect(navigation).toHaveBeenCalledWith('/api/admin/login/saml');
  });

  it('starts admin SSO when Enter is pressed while no field has the focus', async () => {
    installFakeApi(SAML_CONFIGURED);
    const navigation = vi.spyOn(browserLocation, 'assign').mockImplementation(() => undefined);
    const { user } = renderApp('/admin');
    await screen.findByRole('button', { name: 'Sign in with SSO' });
    await user.keyboard('{Enter}');
    expect(navigation).toHaveBeenCalledExactlyOnceWith('/api/admin/login/saml');
  });

  it('uses the admin settings and metadata, not the user ones', async () => {
    installFakeApi({
      'GET /api/system_status': {
        body: { data: { IPApi: '', JsBundleHash: 'build-1', UserSAMLConfigured: true, AdminSAMLConfigured: false } },
      },
      'GET /api/saml/metadata': SAML_METADATA_ANSWER,
      'GET /api/admin/saml/metadata': SAML_METADATA_ANSWER,
    });
    renderApp('/admin');
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeVisible();
    expect(screen.queryByRole('button', { name: 'Sign in with SSO' })).not.toBeInTheDocument();
  });

  it('offers the admins’ OpenID Connect provider, never the users’, and starts it without a kiosk flag', async () => {
    installFakeApi({
      'GET /api/system_status': {
        body: {
          data: {
            IPApi: '',
            JsBundleHash: 'build-1',
            UserSAMLConfigured: false,
            AdminSAMLConfigured: false,
            UserOIDCConfigured: true,
            UserOIDCProviderName: 'Staff ID',
            AdminOIDCConfigured: true,
            AdminOIDCProviderName: 'Admin ID',
          },
        },
      },
    });
    const navigation = vi.spyOn(browserLocation, 'assign').mockImplementation(() => undefined);
    const { user } = renderApp('/admin');
    await user.click(await screen.findByRole('button', { name: 'Sign in with Admin ID' }));
    expect(screen.queryByRole('button', { name: 'Sign in with Staff ID' })).not.toBeInTheDocument();
    expect(navigation).toHaveBeenCalledExactlyOnceWith('/api/admin/login/oidc');
  });
});
