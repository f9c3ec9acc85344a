import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import i18n from '../../../i18n/i18n';
import { installFakeApi } from '../../../test-support/fake-api';
import { adminSession, userSession, userStatus } from '../../../test-support/fixtures';
import { currentPath, renderApp } from '../../../test-support/render-app';
import { SESSION_KEYS } from '../../../lib/session/session-store';

async function fillAndSubmit(user: ReturnType<typeof renderApp>['user'], userName: string, password: string) {
  if (userName !== '') await user.type(await screen.findByLabelText('Username'), userName);
  if (password !== '') await user.type(screen.getByLabelText('Password', { selector: 'input' }), password);
  await user.click(screen.getByRole('button', { name: 'Sign in' }));
}

describe('user login', () => {
  it('asks for a username and a password before calling the server', async () => {
    const api = installFakeApi();
    const { user } = renderApp('/');
    await fillAndSubmit(user, '', '');
    expect(await screen.findByText('You must specify a username')).toBeInTheDocument();
    expect(screen.getByText('You must specify a password')).toBeInTheDocument();
    expect(api.calls('POST /api/login')).toHaveLength(0);
  });

  it('treats a username of spaces as missing', async () => {
    installFakeApi();
    const { user } = renderApp('/');
    await fillAndSubmit(user, '   ', 'secret-password');
    expect(await screen.findByText('You must specify a username')).toBeInTheDocument();
  });

  it('shows the error query parameter, translated when it is an error code', async () => {
    installFakeApi();
    renderApp('/?error=err.samlNotConfigured');
    expect(await screen.findByText('Error: SAML not configured')).toBeInTheDocument();
  });

  it('shows an error query parameter that is not a code as it is', async () => {
    installFakeApi();
    renderApp('/?error=The%20identity%20provider%20said%20no');
    expect(await screen.findByText('Error: The identity provider said no')).toBeInTheDocument();
  });

  it('shows wrong credentials as "Error: Invalid credentials"', async () => {
    installFakeApi({ 'POST /api/login': { status: 401, body: { Err: 'err.invalidCredentials' } } });
    const { user } = renderApp('/');
    await fillAndSubmit(user, 'ada', 'wrong-password');
    expect(await screen.findByRole('alert')).toHaveTextContent('Error: Invalid credentials');
    expect(currentPath()).toBe('/');
  });

  it('shows a rate-limit answer with the wait in words', async () => {
    installFakeApi({ 'POST /api/login': { status: 429, body: { Err: 'err.tooManyRequests', Extra: '840s' } } });
    const { user } = renderApp('/');
    await fillAndSubmit(user, 'ada', 'any-password');
    expect(await screen.findByText('Error: Too many requests, please try again in 14 minutes')).toBeInTheDocument();
  });

  it('shows a rate-limit answer with the wait in German words', async () => {
    await i18n.changeLanguage('de');
    installFakeApi({ 'POST /api/login': { status: 429, body: { Err: 'err.tooManyRequests', Extra: '40s' } } });
    const { user } = renderApp('/');
    await user.type(await screen.findByLabelText('Benutzername'), 'ada');
    await user.type(screen.getByLabelText('Passwort', { selector: 'input' }), 'irgendwas');
    await user.click(screen.getByRole('button', { name: 'Anmelden' }));
    expect(
      await screen.findByText('Fehler: Zu viele Anfragen, bitte versuchen Sie es in 40 Sekunden erneut'),
    ).toBeInTheDocument();
  });

  it.each([false, true])('sends KioskMode %s from the public-computer box', async (kiosk) => {
    const api = installFakeApi({ 'POST /api/login': { body: { data: userSession({ KioskMode: kiosk }) } } });
    const { user } = renderApp('/');
    if (kiosk) await user.click(await screen.findByRole('checkbox', { name: /This is a public computer/ }));
    await fillAndSubmit(user, 'ada', 'correct-password');
    await waitFor(() => expect(api.calls('POST /api/login')).toHaveLength(1));
    expect(api.calls('POST /api/login')[0]?.body).toEqual({
      UserName: 'ada',
      Password: 'correct-password',
      KioskMode: kiosk,
    });
  });

  it.each([
    [false, '/home'],
    [true, '/home/new'],
  ])('stores the session and, with NewUserDashboard %s, goes to %s', async (newDashboard, target) => {
    const session = userSession({ NewUserDashboard: newDashboard });
    installFakeApi({
      'POST /api/login': { body: { data: session } },
      'GET /api/status': { body: { data: userStatus({ NewUserDashboard: newDashboard }) } },
    });
    const { user } = renderApp('/');
    await fillAndSubmit(user, 'ada', 'correct-password');
    await waitFor(() => expect(currentPath()).toBe(target));
    expect(JSON.parse(window.sessionStorage.getItem(SESSION_KEYS.user) ?? 'null')).toEqual(session);
  });

  it.each([
    ['err.totpVerificationRequired', '/otp/verify'],
    ['err.totpEnrolmentRequired', '/otp/onboard'],
  ])('follows %s to %s', async (code, target) => {
    installFakeApi({ 'POST /api/login': { status: 403, body: { Err: code } } });
    const { user } = renderApp('/');
    await fillAndSubmit(user, 'ada', 'correct-password');
    await waitFor(() => expect(currentPath()).toBe(target));
  });

  it.each([
    [{ TotpEnabled: true, AdminTotpVerified: true }, '/admin/otp/verify'],
    [{ TotpEnabled: true, AdminTotpVerified: false }, '/admin/otp/onboard'],
    [{ TotpEnabled: false, AdminTotpVerified: false }, '/admin/home'],
  ])('sends an admin who used the user form (%o) to %s', async (totp, target) => {
    installFakeApi({
      'POST /api/login': { status: 403, body: { Err: 'err.unauthorised' } },
      // The admin's sign-in may still wait for its second factor, so the session endpoint answers.
      'GET /api/admin/session': { body: { data: adminSession(totp) } },
    });
    const { user } = renderApp('/');
    await fillAndSubmit(user, 'grace', 'admin-password');
    await waitFor(() => expect(currentPath()).toBe(target));
    expect(window.sessionStorage.getItem(SESSION_KEYS.admin)).toContain('Grace Hopper');
  });

  it('links to the admin login', async () => {
    installFakeApi();
    const { user } = renderApp('/');
    await user.click(await screen.findByRole('link', { name: 'Administrator sign in' }));
    await waitFor(() => expect(currentPath()).toBe('/admin'));
  });

  it('renders in German when the language is de', async () => {
    await i18n.changeLanguage('de');
    installFakeApi({ 'POST /api/login': { status: 401, body: { Err: 'err.invalidCredentials' } } });
    const { user } = renderApp('/');
    expect(await screen.findByRole('heading', { level: 1, name: 'Bei Postern anmelden' })).toBeInTheDocument();
    expect(screen.getByRole('checkbox', { name: /Dies ist ein öffentlicher Computer/ })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Anmelden' }));
    expect(await screen.findByText('Sie müssen einen Benutzernamen angeben')).toBeInTheDocument();
    await user.type(screen.getByLabelText('Benutzername'), 'ada');
    await user.type(screen.getByLabelText('Passwort', { selector: 'input' }), 'falsch-falsch');
    await user.click(screen.getByRole('button', { name: 'Anmelden' }));
    expect(await screen.findByText('Fehler: Ungültige Anmeldedaten')).toBeInTheDocument();
    expect(document.title).toBe('Anmelden · Postern');
  });
});
