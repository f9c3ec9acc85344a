import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import i18n from '../../../i18n/i18n';
import { SESSION_KEYS } from '../../../lib/session/session-store';
import { installFakeApi } from '../../../test-support/fake-api';
import { userStatus } from '../../../test-support/fixtures';
import { currentPath, renderApp } from '../../../test-support/render-app';

const SIGNED_IN = { body: { data: { Outcome: 'SignedIn' } } };

async function enterCode(user: ReturnType<typeof renderApp>['user'], code: string) {
  const field = await screen.findByLabelText('Authentication code');
  await user.clear(field);
  if (code !== '') await user.type(field, code);
  await user.click(screen.getByRole('button', { name: 'Verify' }));
}

describe('two-factor verification (/otp/verify)', () => {
  it('has one heading and a focused numeric one-time-code field', async () => {
    installFakeApi();
    renderApp('/otp/verify');
    expect(await screen.findAllByRole('heading', { level: 1 })).toHaveLength(1);
    expect(screen.getByRole('heading', { level: 1, name: 'Two-factor verification' })).toBeVisible();
    const field = screen.getByLabelText('Authentication code');
    await waitFor(() => expect(field).toHaveFocus());
    expect(field).toHaveAttribute('inputmode', 'numeric');
    expect(field).toHaveAttribute('autocomplete', 'one-time-code');
  });

  it.each([
    ['', 'You must enter a code'],
    ['12345', 'The code has 6 digits'],
    ['12a456', 'The code has 6 digits'],
  ])('refuses the code "%s" before calling the server: %s', async (code, message) => {
    const api = installFakeApi();
    const { user } = renderApp('/otp/verify');
    await enterCode(user, code);
    expect(await screen.findByText(message)).toBeVisible();
    expect(api.calls('POST /api/otp/verify')).toHaveLength(0);
  });

  it.each([
    [false, '/home'],
    [true, '/home/new'],
  ])('signs in with a good code and, with NewUserDashboard %s, goes to %s', async (newDashboard, target) => {
    const api = installFakeApi({
      'POST /api/otp/verify': SIGNED_IN,
      'GET /api/status': { body: { data: userStatus({ Name: 'Ada Lovelace', NewUserDashboard: newDashboard }) } },
    });
    const { user } = renderApp('/otp/verify');
    await enterCode(user, '123 456');
    await waitFor(() => expect(currentPath()).toBe(target));
    expect(api.calls('POST /api/otp/verify')[0]?.body).toEqual({ Code: '123456' });
    expect(JSON.parse(window.sessionStorage.getItem(SESSION_KEYS.user) ?? 'null')).toMatchObject({
      Name: 'Ada Lovelace',
      UserName: 'ada',
      AuthType: 'local',
      NewUserDashboard: newDashboard,
    });
    expect(await screen.findByText('Hello, Ada Lovelace')).toBeVisible();
  });

  it('shows a refused code as "Invalid code" on the field and stays', async () => {
    installFakeApi({ 'POST /api/otp/verify': { status: 400, body: { Err: 'err.invalidCode' } } });
    const { user } = renderApp('/otp/verify');
    await enterCode(user, '000000');
    expect(await screen.findByText('Invalid code')).toBeVisible();
    expect(screen.getByLabelText('Authentication code')).toHaveAttribute('aria-invalid', 'true');
    expect(currentPath()).toBe('/otp/verify');
    // Typing a new code clears the verdict on the old one.
    await user.type(screen.getByLabelText('Authentication code'), '1');
    expect(screen.queryByText('Invalid code')).not.toBeInTheDocument();
  });

  it.each([
    ['en', 'This code was just used; wait for the next one'],
    ['de', 'Dieser Code wurde gerade verwendet; warten Sie auf den nächsten'],
  ])(
    'says in %s that a code already used must wait for the next, on the field, not "Invalid code"',
    async (language, text) => {
      await i18n.changeLanguage(language);
      installFakeApi({ 'POST /api/otp/verify': { status: 400, body: { Err: 'err.totpCodeUsed' } } });
      const { user } = renderApp('/otp/verify');
      await user.type(await screen.findByRole('textbox'), '123456');
      await user.click(screen.getByRole('button', { name: language === 'en' ? 'Verify' : 'Bestätigen' }));
      expect(await screen.findByText(text)).toBeVisible();
      expect(screen.getByRole('textbox')).toHaveAttribute('aria-invalid', 'true');
      expect(screen.queryByText(/Invalid code|Ungültiger Code/)).not.toBeInTheDocument();
      expect(screen.queryByRole('alert')).not.toBeInTheDocument();
      expect(currentPath()).toBe('/otp/verify');
    },
  );

  it('sends someone whose pending sign-in expired back to the login, saying so', async () => {
    installFakeApi({ 'POST /api/otp/verify': { status: 401, body: { Err: 'err.invalidSession' } } });
    const { user } = renderApp('/otp/verify');
    await enterCode(user, '123456');
    await waitFor(() => expect(currentPath()).toBe('/?error=err.sessionExpired'));
    expect(await screen.findByText('Error: Your session has expired, log in again')).toBeVisible();
  });

  it('shows the rate limit with the wait in words', async () => {
    installFakeApi({
      'POST /api/otp/verify': { status: 429, body: { Err: 'err.tooManyRequests', Extra: '40s' } },
    });
    const { user } = renderApp('/otp/verify');
    await enterCode(user, '123456');
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Error: Too many requests, please try again in 40 seconds',
    );
  });

  it('asks nothing of the server before a code is sent', async () => {
    const api = installFakeApi();
    renderApp('/otp/verify');
    await screen.findByLabelText('Authentication code');
    expect(api.calls('GET /api/status')).toHaveLength(0);
    expect(api.calls('POST /api/otp/verify')).toHaveLength(0);
  });

  it('leads back to the login', async () => {
    installFakeApi();
    const { user } = renderApp('/otp/verify');
    await user.click(await screen.findByRole('link', { name: 'Back to sign in' }));
    await waitFor(() => expect(currentPath()).toBe('/'));
  });

  it('is labelled in German', async () => {
    await i18n.changeLanguage('de');
    installFakeApi();
    const { user } = renderApp('/otp/verify');
    expect(await screen.findByRole('heading', { level: 1, name: 'Zwei-Faktor-Bestätigung' })).toBeVisible();
    await user.click(screen.getByRole('button', { name: 'Bestätigen' }));
    expect(await screen.findByText('Sie müssen einen Code eingeben')).toBeVisible();
    expect(screen.getByLabelText('Authentifizierungscode')).toBeVisible();
  });

  it('is where a sign-in that needs a code leads', async () => {
    installFakeApi({
      'POST /api/login': { status: 401, body: { Err: 'err.totpVerificationRequired' } },
      'POST /api/otp/verify': SIGNED_IN,
      'GET /api/status': { body: { data: userStatus() } },
    });
    const { user } = renderApp('/');
    await user.type(await screen.findByLabelText('Username'), 'ada');
    await user.type(screen.getByLabelText('Password', { selector: 'input' }), 'correct-password');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(currentPath()).toBe('/otp/verify'));
    await enterCode(user, '654321');
    await waitFor(() => expect(currentPath()).toBe('/home'));
  });
});
