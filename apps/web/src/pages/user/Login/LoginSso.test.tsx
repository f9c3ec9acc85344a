import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import i18n from '../../../i18n/i18n';
import { ssoKeys } from '../../../features/auth/sso';
import { browserLocation } from '../../../lib/navigation/browser-location';
import { installFakeApi, SAML_CONFIGURED, SAML_METADATA_ANSWER } from '../../../test-support/fake-api';
import { userSession } from '../../../test-support/fixtures';
import { currentPath, renderApp } from '../../../test-support/render-app';

/** Stands in for the full-page navigation jsdom cannot do. */
function spyOnNavigation() {
  return vi.spyOn(browserLocation, 'assign').mockImplementation(() => undefined);
}

describe('user login with single sign-on', () => {
  it('asks for no metadata when the server says SAML is not set up, and shows the local form alone', async () => {
    const api = installFakeApi();
    const { queryClient } = renderApp('/');
    await waitFor(() => expect(queryClient.getQueryData(ssoKeys.metadata('user'))).toBe(false));
    expect(api.calls('GET /api/system_status').length).toBeGreaterThan(0);
    // No request that answers 404 (a red line in every browser console).
    expect(api.calls('GET /api/saml/metadata')).toHaveLength(0);
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeVisible();
    expect(screen.queryByRole('button', { name: 'Sign in with SSO' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Sign in with a username and password' })).not.toBeInTheDocument();
  });

  it('offers no SSO button when SAML is set up but its metadata answers 404', async () => {
    const api = installFakeApi({
      ...SAML_CONFIGURED,
      'GET /api/saml/metadata': { status: 404, body: { Err: 'err.samlNotConfigured' } },
    });
    renderApp('/');
    await waitFor(() => expect(api.calls('GET /api/saml/metadata')).toHaveLength(1));
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeVisible();
    expect(screen.queryByRole('button', { name: 'Sign in with SSO' })).not.toBeInTheDocument();
  });

  it('takes any failure of the metadata call as "no SSO", without retrying it', async () => {
    const api = installFakeApi({
      ...SAML_CONFIGURED,
      'GET /api/saml/metadata': { status: 503, body: { Err: 'err.storeUnavailable' } },
    });
    const { queryClient } = renderApp('/');
    await waitFor(() => expect(queryClient.getQueryData(ssoKeys.metadata('user'))).toBe(false));
    expect(queryClient.getQueryState(ssoKeys.metadata('user'))?.fetchFailureCount).toBe(0);
    expect(api.calls('GET /api/saml/metadata')).toHaveLength(1);
    expect(screen.getByRole('button', { name: 'Sign in' })).toBeVisible();
    expect(screen.queryByRole('button', { name: 'Sign in with SSO' })).not.toBeInTheDocument();
  });

  it('shows SSO first and folds the local form away, closed until its toggle is pressed', async () => {
    installFakeApi(SAML_CONFIGURED);
    const { user } = renderApp('/');
    expect(await screen.findByRole('button', { name: 'Sign in with SSO' })).toBeVisible();
    const toggle = screen.getByRole('button', { name: 'Sign in with a username and password' });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await waitFor(() => expect(screen.getByLabelText('Username')).not.toBeVisible());
    // The kiosk box stays outside the folded section: it applies to SSO too.
    expect(screen.getByRole('checkbox', { name: /This is a public computer/ })).toBeVisible();

    await user.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    await waitFor(() => expect(screen.getByLabelText('Username')).toBeVisible());
    expect(screen.getByRole('button', { name: 'Sign in' })).toBeVisible();
  });

  it.each([false, true])('starts SSO with kioskMode=%s from the button', async (kiosk) => {
    installFakeApi(SAML_CONFIGURED);
    const navigation = spyOnNavigation();
    const { user } = renderApp('/');
    const button = await screen.findByRole('button', { name: 'Sign in with SSO' });
    if (kiosk) await user.click(screen.getByRole('checkbox', { name: /This is a public computer/ }));
    await user.click(button);
    expect(navigation).toHaveBeenCalledWith(`/api/login/saml?kioskMode=${String(kiosk)}`);
  });

  it('starts SSO when Enter is pressed while no field has the focus', async () => {
    installFakeApi(SAML_CONFIGURED);
    const navigation = spyOnNavigation();
    const { user } = renderApp('/');
    await screen.findByRole('button', { name: 'Sign in with SSO' });
    expect(document.activeElement).toBe(document.body);
    await user.keyboard('{Enter}');
    expect(navigation).toHaveBeenCalledExactlyOnceWith('/api/login/saml?kioskMode=false');
  });

  it('leaves Enter in a field of the local form to that form', async () => {
    const api = installFakeApi({
      ...SAML_CONFIGURED,
      'POST /api/login': { body: { data: userSession() } },
    });
    const navigation = spyOnNavigation();
    const { user } = renderApp('/');
    await user.click(await screen.findByRole('button', { name: 'Sign in with a username and password' }));
    await user.type(await screen.findByLabelText('Username'), 'ada');
    await user.type(screen.getByLabelText('Password', { selector: 'input' }), 'correct-password{Enter}');
    await waitFor(() => expect(api.calls('POST /api/login')).toHaveLength(1));
    expect(navigation).not.toHaveBeenCalled();
    await waitFor(() => expect(currentPath()).toBe('/home'));
  });

  it('does not start SSO on Enter when SSO is not set up', async () => {
    installFakeApi();
    const navigation = spyOnNavigation();
    const { user } = renderApp('/');
    await screen.findByRole('button', { name: 'Sign in' });
    await user.keyboard('{Enter}');
    expect(navigation).not.toHaveBeenCalled();
  });

  it('keeps the local form open for someone who was already typing when SSO turned out to exist', async () => {
    let answerMetadata: () => void = () => undefined;
    const metadata = new Promise<void>((resolve) => (answerMetadata = resolve));
    installFakeApi({
      ...SAML_CONFIGURED,
      'GET /api/saml/metadata': () => metadata.then(() => SAML_METADATA_ANSWER),
    });
    const { user } = renderApp('/');
    await user.type(await screen.findByLabelText('Username'), 'ada');
    answerMetadata();
    expect(await screen.findByRole('button', { name: 'Sign in with SSO' })).toBeVisible();
    expect(screen.getByLabelText('Username')).toBeVisible();
    expect(screen.getByLabelText('Username')).toHaveValue('ada');
  });

  it('shows the SSO texts in German', async () => {
    await i18n.changeLanguage('de');
    installFakeApi(SAML_CONFIGURED);
    renderApp('/');
    expect(await screen.findByRole('button', { name: 'Mit SSO anmelden' })).toBeVisible();
    expect(screen.getByRole('button', { name: 'Mit Benutzername und Passwort anmelden' })).toBeVisible();
  });
});
