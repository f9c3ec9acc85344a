import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import i18n from '../../../i18n/i18n';
import { QR_CODE_SIZE } from '../../../features/two-factor/components/EnrolmentSecret';
import { SESSION_KEYS } from '../../../lib/session/session-store';
import { installFakeApi } from '../../../test-support/fake-api';
import { userStatus } from '../../../test-support/fixtures';
import { currentPath, renderApp } from '../../../test-support/render-app';

const SECRET = {
  Secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
  URL: 'otpauth://totp/Postern:ada?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Postern&algorithm=SHA1&digits=6&period=30',
};
const GENERATED = { body: { data: SECRET } };

async function enterCode(user: ReturnType<typeof renderApp>['user'], code: string) {
  await user.type(await screen.findByLabelText('Authentication code'), code);
  await user.click(screen.getByRole('button', { name: 'Verify' }));
}

describe('two-factor enrolment (/otp/onboard)', () => {
  it('shows the otpauth URL as a QR code, a link into an authenticator app, and the secret', async () => {
    const api = installFakeApi({ 'GET /api/otp/generate': GENERATED });
    renderApp('/otp/onboard');
    const qr = await screen.findByRole('img', { name: 'QR code to scan with your authenticator app' });
    expect(qr.tagName.toLowerCase()).toBe('svg');
    expect(qr).toHaveAttribute('width', String(QR_CODE_SIZE));
    expect(qr.querySelectorAll('path').length).toBeGreaterThan(0);
    expect(screen.getByRole('link', { name: 'Open in an authenticator app on this device' })).toHaveAttribute(
      'href',
      SECRET.URL,
    );
    expect(screen.getByLabelText('Secret key')).toHaveValue(SECRET.Secret);
    expect(screen.getAllByRole('heading', { level: 1 })).toHaveLength(1);
    expect(api.calls('GET /api/otp/generate')).toHaveLength(1);
  });

  it('focuses the code field, numeric and one-time-code', async () => {
    installFakeApi({ 'GET /api/otp/generate': GENERATED });
    renderApp('/otp/onboard');
    const field = await screen.findByLabelText('Authentication code');
    await waitFor(() => expect(field).toHaveFocus());
    expect(field).toHaveAttribute('inputmode', 'numeric');
    expect(field).toHaveAttribute('autocomplete', 'one-time-code');
  });

  it('copies the secret, says "Copied" for a moment, and names the button in a tooltip after a delay', async () => {
    installFakeApi({ 'GET /api/otp/generate': GENERATED });
    const { user } = renderApp('/otp/onboard');
    const copy = await screen.findByRole('button', { name: 'Copy key' });
    await user.hover(copy);
    expect(screen.queryByRole('tooltip')).not.toBeInTheDocument();
    expect(await screen.findByRole('tooltip')).toHaveTextContent('Copy key');

    await user.click(copy);
    expect(await navigator.clipboard.readText()).toBe(SECRET.Secret);
    expect(screen.getByRole('button', { name: 'Copied' })).toBeVisible();
    await waitFor(() => expect(screen.getByRole('button', { name: 'Copy key' })).toBeVisible(), { timeout: 2_000 });
  });

  it('sends the code and, once enrolled, is signed in: the home, saying so, without asking for a code again', async () => {
    const api = installFakeApi({
      'GET /api/otp/generate': GENERATED,
      'POST /api/otp/verify': { body: { data: { Outcome: 'Enrolled' } } },
      'GET /api/status': { body: { data: userStatus({ Name: 'Ada Lovelace', NewUserDashboard: false }) } },
    });
    const { user } = renderApp('/otp/onboard');
    await enterCode(user, '123456');
    await waitFor(() => expect(currentPath()).toBe('/home'));
    expect(api.calls('POST /api/otp/verify')).toHaveLength(1);
    expect(api.calls('POST /api/otp/verify')[0]?.body).toEqual({ Code: '123456' });
    expect(JSON.parse(window.sessionStorage.getItem(SESSION_KEYS.user) ?? 'null')).toMatchObject({
      Name: 'Ada Lovelace',
    });
    expect(
      await screen.findByText(
        'Two-factor authentication is set up. From now on, signing in asks for a code from your app.',
      ),
    ).toBeVisible();
    expect(await screen.findByText('Hello, Ada Lovelace')).toBeVisible();
    expect(screen.queryByLabelText('Authentication code')).not.toBeInTheDocument();
  });

  it('shows a refused code as "Invalid code" and keeps the QR code', async () => {
    installFakeApi({
      'GET /api/otp/generate': GENERATED,
      'POST /api/otp/verify': { status: 400, body: { Err: 'err.invalidCode' } },
    });
    const { user } = renderApp('/otp/onboard');
    await enterCode(user, '999999');
    expect(await screen.findByText('Invalid code')).toBeVisible();
    expect(screen.getByRole('img', { name: 'QR code to scan with your authenticator app' })).toBeVisible();
    expect(currentPath()).toBe('/otp/onboard');
  });

  it.each([
    ['err.alreadyVerified2fa', 'Error: Already verified 2FA'],
    ['err.userAlreadyVerified', 'Error: User already verified'],
  ])('says so for %s and offers the way back to the login', async (code, message) => {
    installFakeApi({ 'GET /api/otp/generate': { status: 400, body: { Err: code } } });
    const { user } = renderApp('/otp/onboard');
    expect(await screen.findByRole('alert')).toHaveTextContent(message);
    expect(screen.queryByLabelText('Authentication code')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Try again' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('link', { name: 'Back to sign in' }));
    await waitFor(() => expect(currentPath()).toBe('/'));
  });

  it('sends someone without a pending sign-in back to the login, saying the session expired', async () => {
    installFakeApi({ 'GET /api/otp/generate': { status: 401, body: { Err: 'err.invalidSession' } } });
    renderApp('/otp/onboard');
    await waitFor(() => expect(currentPath()).toBe('/?error=err.sessionExpired'));
    expect(await screen.findByText('Error: Your session has expired, log in again')).toBeVisible();
  });

  it('does the same when the pending sign-in expires before the code is sent', async () => {
    installFakeApi({
      'GET /api/otp/generate': GENERATED,
      'POST /api/otp/verify': { status: 401, body: { Err: 'err.invalidSession' } },
    });
    const { user } = renderApp('/otp/onboard');
    await enterCode(user, '123456');
    await waitFor(() => expect(currentPath()).toBe('/?error=err.sessionExpired'));
  });

  it('offers to try again after another failure', async () => {
    let calls = 0;
    installFakeApi({
      'GET /api/otp/generate': () =>
        ++calls === 1 ? { status: 500, body: { Err: 'err.internalServerError' } } : GENERATED,
    });
    const { user } = renderApp('/otp/onboard');
    expect(await screen.findByRole('alert')).toHaveTextContent('Error: Internal server error');
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByLabelText('Secret key')).toHaveValue(SECRET.Secret);
  });

  it('never offers to postpone enrolment to a user', async () => {
    installFakeApi({ 'GET /api/otp/generate': GENERATED });
    renderApp('/otp/onboard');
    await screen.findByLabelText('Authentication code');
    expect(screen.queryByRole('button', { name: 'Do this next time' })).not.toBeInTheDocument();
  });

  it('is where a sign-in that needs enrolment leads, and ends signed in on the dashboard', async () => {
    installFakeApi({
      'POST /api/login': { status: 401, body: { Err: 'err.totpEnrolmentRequired' } },
      'GET /api/otp/generate': GENERATED,
      'POST /api/otp/verify': { body: { data: { Outcome: 'Enrolled' } } },
      'GET /api/status': { body: { data: userStatus({ NewUserDashboard: true }) } },
    });
    const { user } = renderApp('/');
    await user.type(await screen.findByLabelText('Username'), 'ada');
    await user.type(screen.getByLabelText('Password', { selector: 'input' }), 'correct-password');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(currentPath()).toBe('/otp/onboard'));
    await enterCode(user, '123456');
    await waitFor(() => expect(currentPath()).toBe('/home/new'));
    expect(await screen.findByText(/Two-factor authentication is set up/)).toBeVisible();
  });

  it('is labelled in German', async () => {
    await i18n.changeLanguage('de');
    installFakeApi({
      'GET /api/otp/generate': GENERATED,
      'POST /api/otp/verify': { body: { data: { Outcome: 'Enrolled' } } },
      'GET /api/status': { body: { data: userStatus() } },
    });
    const { user } = renderApp('/otp/onboard');
    expect(await screen.findByRole('img', { name: 'QR-Code zum Scannen mit Ihrer Authenticator-App' })).toBeVisible();
    expect(screen.getByLabelText('Geheimer Schlüssel')).toHaveValue(SECRET.Secret);
    await user.type(screen.getByLabelText('Authentifizierungscode'), '123456');
    await user.click(screen.getByRole('button', { name: 'Bestätigen' }));
    expect(await screen.findByText(/Die Zwei-Faktor-Authentifizierung ist eingerichtet/)).toBeVisible();
  });
});
