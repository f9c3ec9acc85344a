import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { SESSION_KEYS } from '../../../lib/session/session-store';
import { installFakeApi } from '../../../test-support/fake-api';
import { adminSession, adminStatus, signInAdmin } from '../../../test-support/fixtures';
import { currentPath, renderApp } from '../../../test-support/render-app';

/** An admin whose sign-in still owes its second factor, as /api/admin/login left it. */
function pendingAdmin(step: '/admin/otp/verify' | '/admin/otp/onboard', deferable = false) {
  signInAdmin({
    TotpEnabled: true,
    AdminTotpVerified: step === '/admin/otp/verify',
    TotpEnrolmentDeferable: deferable,
  });
  window.sessionStorage.setItem(SESSION_KEYS.adminSecondFactor, step);
}

async function enterCode(user: ReturnType<typeof renderApp>['user'], code: string) {
  await user.type(await screen.findByLabelText('Authentication code'), code);
  await user.click(screen.getByRole('button', { name: 'Verify' }));
}

describe('admin two-factor verification (/admin/otp/verify)', () => {
  it('finishes the sign-in with a good code: status, session stored, marker cleared, admin home', async () => {
    const api = installFakeApi({
      'POST /api/admin/otp/verify': { body: { data: { Outcome: 'SignedIn' } } },
      'GET /api/admin/status': {
        body: { data: adminStatus({ TotpEnabled: true, AdminTotpVerified: true, SessionCount: 7 }) },
      },
    });
    pendingAdmin('/admin/otp/verify');
    const { user } = renderApp('/admin/otp/verify');
    expect(await screen.findByRole('heading', { level: 1, name: 'Admin two-factor verification' })).toBeVisible();
    await waitFor(() => expect(screen.getByLabelText('Authentication code')).toHaveFocus());
    // While the sign-in is pending the admin status answers 401: the screen must not ask for it.
    expect(api.calls('GET /api/admin/status')).toHaveLength(0);

    await enterCode(user, '123456');
    await waitFor(() => expect(currentPath()).toBe('/admin/home'));
    expect(api.calls('POST /api/admin/otp/verify')[0]?.body).toEqual({ Code: '123456' });
    expect(window.sessionStorage.getItem(SESSION_KEYS.adminSecondFactor)).toBeNull();
    expect(JSON.parse(window.sessionStorage.getItem(SESSION_KEYS.admin) ?? 'null')).toMatchObject({
      Name: 'Grace Hopper',
      AdminTotpVerified: true,
    });
    expect(await screen.findByRole('navigation', { name: 'Admin navigation' })).toBeVisible();
  });

  it('shows a refused code as "Invalid code" and keeps the sign-in pending', async () => {
    installFakeApi({ 'POST /api/admin/otp/verify': { status: 400, body: { Err: 'err.invalidCode' } } });
    pendingAdmin('/admin/otp/verify');
    const { user } = renderApp('/admin/otp/verify');
    await enterCode(user, '000000');
    expect(await screen.findByText('Invalid code')).toBeVisible();
    expect(currentPath()).toBe('/admin/otp/verify');
    expect(window.sessionStorage.getItem(SESSION_KEYS.adminSecondFactor)).toBe('/admin/otp/verify');
  });

  it('sends an admin whose pending sign-in expired to the admin login, forgetting it', async () => {
    installFakeApi({ 'POST /api/admin/otp/verify': { status: 401, body: { Err: 'err.invalidSession' } } });
    pendingAdmin('/admin/otp/verify');
    const { user } = renderApp('/admin/otp/verify');
    await enterCode(user, '123456');
    await waitFor(() => expect(currentPath()).toBe('/admin?error=err.sessionExpired'));
    expect(await screen.findByText('Error: Your session has expired, log in again')).toBeVisible();
    expect(window.sessionStorage.getItem(SESSION_KEYS.admin)).toBeNull();
    expect(window.sessionStorage.getItem(SESSION_KEYS.adminSecondFactor)).toBeNull();
  });

  it('shows the rate limit with the wait in words', async () => {
    installFakeApi({
      'POST /api/admin/otp/verify': { status: 429, body: { Err: 'err.tooManyRequests', Extra: '840s' } },
    });
    pendingAdmin('/admin/otp/verify');
    const { user } = renderApp('/admin/otp/verify');
    await enterCode(user, '123456');
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Error: Too many requests, please try again in 14 minutes',
    );
  });

  it('leads back to the admin login, forgetting the half-finished sign-in', async () => {
    installFakeApi();
    pendingAdmin('/admin/otp/verify');
    const { user } = renderApp('/admin/otp/verify');
    await user.click(await screen.findByRole('link', { name: 'Back to sign in' }));
    await waitFor(() => expect(currentPath()).toBe('/admin'));
    expect(window.sessionStorage.getItem(SESSION_KEYS.admin)).toBeNull();
    expect(await screen.findByLabelText('Username')).toBeVisible();
  });

  it('is where an admin login with a verified authenticator leads, and completes it', async () => {
    installFakeApi({
      'POST /api/admin/login': { body: { data: adminSession({ TotpEnabled: true, AdminTotpVerified: true }) } },
      'POST /api/admin/otp/verify': { body: { data: { Outcome: 'SignedIn' } } },
      'GET /api/admin/status': { body: { data: adminStatus({ TotpEnabled: true, AdminTotpVerified: true }) } },
    });
    const { user } = renderApp('/admin');
    await user.type(await screen.findByLabelText('Username'), 'grace');
    await user.type(screen.getByLabelText('Password', { selector: 'input' }), 'admin-password');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(currentPath()).toBe('/admin/otp/verify'));
    await enterCode(user, '123456');
    await waitFor(() => expect(currentPath()).toBe('/admin/home'));
    expect(window.sessionStorage.getItem(SESSION_KEYS.adminSecondFactor)).toBeNull();
  });
});

const SECRET = {
  Secret: 'KRSXG5CTMVRXEZLUKN2XAZLSKNSWG4TFOQ',
  URL: 'otpauth://totp/Postern%20admin:grace?secret=KRSX',
};

describe('admin two-factor enrolment (/admin/otp/onboard)', () => {
  it('shows the QR code and secret, and after enrolling is signed in to the console, two-factor verified', async () => {
    const api = installFakeApi({
      'GET /api/admin/otp/generate': { body: { data: SECRET } },
      'POST /api/admin/otp/verify': { body: { data: { Outcome: 'Enrolled' } } },
      'GET /api/admin/status': { body: { data: adminStatus({ TotpEnabled: true, AdminTotpVerified: true }) } },
    });
    pendingAdmin('/admin/otp/onboard');
    const { user } = renderApp('/admin/otp/onboard');
    expect(await screen.findByRole('img', { name: 'QR code to scan with your authenticator app' })).toBeVisible();
    expect(screen.getByLabelText('Secret key')).toHaveValue(SECRET.Secret);
    expect(screen.getByRole('heading', { level: 1, name: 'Admin two-factor setup' })).toBeVisible();

    await enterCode(user, '123456');
    await waitFor(() => expect(currentPath()).toBe('/admin/home'));
    expect(api.calls('POST /api/admin/otp/verify')).toHaveLength(1);
    expect(api.calls('POST /api/admin/otp/verify')[0]?.body).toEqual({ Code: '123456' });
    expect(
      await screen.findByText(
        'Two-factor authentication is set up. From now on, signing in asks for a code from your app.',
      ),
    ).toBeVisible();
    expect(window.sessionStorage.getItem(SESSION_KEYS.adminSecondFactor)).toBeNull();
    expect(JSON.parse(window.sessionStorage.getItem(SESSION_KEYS.admin) ?? 'null')).toMatchObject({
      AdminTotpVerified: true,
    });
    expect(await screen.findByRole('navigation', { name: 'Admin navigation' })).toBeVisible();
  });

  it('offers "Do this next time" when enrolment is deferable, and defers straight into the console', async () => {
    const api = installFakeApi({
      'GET /api/admin/otp/generate': { body: { data: SECRET } },
      'POST /api/admin/otp/verify': { body: { data: { Outcome: 'Deferred' } } },
      'GET /api/admin/status': { body: { data: adminStatus({ TotpEnabled: true, TotpEnrolmentDeferable: true }) } },
    });
    pendingAdmin('/admin/otp/onboard', true);
    const { user } = renderApp('/admin/otp/onboard');
    await user.click(await screen.findByRole('button', { name: 'Do this next time' }));
    await waitFor(() => expect(currentPath()).toBe('/admin/home'));
    expect(api.calls('POST /api/admin/otp/verify')[0]?.body).toEqual({ deferEnrolment: true });
    expect(api.calls('GET /api/admin/status').length).toBeGreaterThanOrEqual(1);
    expect(window.sessionStorage.getItem(SESSION_KEYS.adminSecondFactor)).toBeNull();
    expect(window.sessionStorage.getItem(SESSION_KEYS.admin)).toContain('Grace Hopper');
    expect(await screen.findByRole('navigation', { name: 'Admin navigation' })).toBeVisible();
  });

  it('does not offer "Do this next time" when enrolment is not deferable', async () => {
    installFakeApi({ 'GET /api/admin/otp/generate': { body: { data: SECRET } } });
    pendingAdmin('/admin/otp/onboard', false);
    renderApp('/admin/otp/onboard');
    await screen.findByLabelText('Authentication code');
    expect(screen.queryByRole('button', { name: 'Do this next time' })).not.toBeInTheDocument();
  });

  it('says "Already verified 2FA" and offers the way back', async () => {
    installFakeApi({ 'GET /api/admin/otp/generate': { status: 400, body: { Err: 'err.alreadyVerified2fa' } } });
    pendingAdmin('/admin/otp/onboard');
    const { user } = renderApp('/admin/otp/onboard');
    expect(await screen.findByRole('alert')).toHaveTextContent('Error: Already verified 2FA');
    await user.click(screen.getByRole('link', { name: 'Back to sign in' }));
    await waitFor(() => expect(currentPath()).toBe('/admin'));
  });

  it('sends an admin without a pending sign-in to the admin login, saying the session expired', async () => {
    installFakeApi({ 'GET /api/admin/otp/generate': { status: 401, body: { Err: 'err.invalidSession' } } });
    renderApp('/admin/otp/onboard');
    await waitFor(() => expect(currentPath()).toBe('/admin?error=err.sessionExpired'));
  });

  it('is where an admin login without an authenticator leads', async () => {
    installFakeApi({
      'POST /api/admin/login': {
        body: { data: adminSession({ TotpEnabled: true, AdminTotpVerified: false, TotpEnrolmentDeferable: true }) },
      },
      'GET /api/admin/otp/generate': { body: { data: SECRET } },
    });
    const { user } = renderApp('/admin');
    await user.type(await screen.findByLabelText('Username'), 'grace');
    await user.type(screen.getByLabelText('Password', { selector: 'input' }), 'admin-password');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(currentPath()).toBe('/admin/otp/onboard'));
    expect(await screen.findByRole('button', { name: 'Do this next time' })).toBeVisible();
  });
});
