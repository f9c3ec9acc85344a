import { screen, waitFor } from '@testing-library/react';
import type { QueryClient } from '@tanstack/react-query';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { browserSupportsWebAuthn, startAuthentication } from '@simplewebauthn/browser';
import {
  AdminStatusResponse,
  AuthenticationOptionsResponse,
  AuthenticationVerifyResponse,
  PasswordlessOptionsResponse,
  PasswordlessVerifyResponse,
  AdminPasswordlessVerifyResponse,
  SystemStatusResponse,
  UserStatusResponse,
  type SystemStatus,
} from '@postern/protocol';
import { statusKeys } from '@/features/status/api';
import i18n from '@/i18n/i18n';
import { SESSION_KEYS } from '@/lib/session/session-store';
import { adminSession, adminStatus, userSession, userStatus } from '@/test-support/fixtures';
import { APP_LOAD, currentPath, renderApp } from '@/test-support/render-app';
import { apiError, data, installTypedFakeApi, type FakeRoute, type TypedHandler } from '@/test-support/typed-fake-api';
import { ASSERTION, AUTHENTICATION_OPTIONS, promptClosed } from '@/test-support/records/passkeys';

// The browser's WebAuthn, which jsdom has not: the library is replaced as a whole (this file runs
// in the isolated project, so the replacement reaches no other test file).
vi.mock('@simplewebauthn/browser');

const CEREMONY = { CeremonyID: 'ceremony-1', Options: AUTHENTICATION_OPTIONS };

function systemStatus(overrides: Partial<SystemStatus>) {
  return data(SystemStatusResponse, {
    IPApi: '',
    JsBundleHash: 'build-1',
    UserSAMLConfigured: false,
    AdminSAMLConfigured: false,
    ...overrides,
  });
}

/** A server whose users (and, with `admins`, admins) may sign in with a passkey alone. */
function passkeyServer(routes: Partial<Record<FakeRoute, TypedHandler>> = {}, admins = false) {
  return installTypedFakeApi(
    {
      'GET /api/system_status': systemStatus({ UserPasskeySignIn: true, AdminPasskeySignIn: admins }),
      'POST /api/webauthn/passwordless/options': data(PasswordlessOptionsResponse, CEREMONY),
      'POST /api/admin/webauthn/passwordless/options': data(PasswordlessOptionsResponse, CEREMONY),
      ...routes,
    },
    { admin: false },
  );
}

/** Waits until the login page has the system status, after which the passkey button would show. */
async function systemStatusRead(queryClient: QueryClient) {
  await waitFor(() => expect(queryClient.getQueryState(statusKeys.system())?.status).toBe('success'));
}

beforeEach(() => {
  vi.mocked(browserSupportsWebAuthn).mockReturnValue(true);
  vi.mocked(startAuthentication).mockResolvedValue(ASSERTION);
});
afterEach(() => vi.mocked(startAuthentication).mockReset());

describe('user login with a passkey', () => {
  it('offers the passkey beside the password form when the server allows it', async () => {
    passkeyServer();
    renderApp('/');
    expect(await screen.findByRole('button', { name: 'Sign in with a passkey' }, APP_LOAD)).toBeVisible();
    expect(screen.getByLabelText('Username')).toBeVisible();
  });

  it.each([
    ['the server does not allow it', false, true],
    ['the browser cannot use passkeys', true, false],
  ])('offers no passkey when %s', async (_case, allowed, supported) => {
    vi.mocked(browserSupportsWebAuthn).mockReturnValue(supported);
    installTypedFakeApi({ 'GET /api/system_status': systemStatus({ UserPasskeySignIn: allowed }) }, { admin: false });
    const { queryClient } = renderApp('/');
    await screen.findByLabelText('Username', undefined, APP_LOAD);
    await systemStatusRead(queryClient);
    expect(screen.queryByRole('button', { name: 'Sign in with a passkey' })).not.toBeInTheDocument();
  });

  it('runs the ceremony, sends the kiosk choice, stores the session and lands on the dashboard', async () => {
    const api = passkeyServer({
      'POST /api/webauthn/passwordless/verify': data(
        PasswordlessVerifyResponse,
        userSession({ KioskMode: true, NewUserDashboard: true }),
      ),
      'GET /api/status': data(UserStatusResponse, userStatus({ KioskMode: true, NewUserDashboard: true })),
    });
    const { user } = renderApp('/');
    const button = await screen.findByRole('button', { name: 'Sign in with a passkey' }, APP_LOAD);
    await user.click(screen.getByRole('checkbox', { name: /This is a public computer/ }));
    await user.click(button);
    await waitFor(() => expect(currentPath()).toBe('/home/new'));
    expect(vi.mocked(startAuthentication)).toHaveBeenCalledExactlyOnceWith({ optionsJSON: AUTHENTICATION_OPTIONS });
    expect(api.calls('POST /api/webauthn/passwordless/verify')[0]?.body).toEqual({
      CeremonyID: 'ceremony-1',
      Response: ASSERTION,
      KioskMode: true,
    });
    expect(JSON.parse(window.sessionStorage.getItem(SESSION_KEYS.user) ?? '{}')).toMatchObject({ KioskMode: true });
  });

  it('says calmly that no passkey was used when the person closes the prompt, and sends nothing', async () => {
    vi.mocked(startAuthentication).mockRejectedValue(promptClosed());
    const api = passkeyServer();
    const { user } = renderApp('/');
    await user.click(await screen.findByRole('button', { name: 'Sign in with a passkey' }, APP_LOAD));
    expect(await screen.findByRole('status')).toHaveTextContent('No passkey was used. You can try again');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(api.calls('POST /api/webauthn/passwordless/verify')).toHaveLength(0);
    expect(currentPath()).toBe('/');
  });

  it('shows a refused passkey as an error', async () => {
    passkeyServer({ 'POST /api/webauthn/passwordless/verify': apiError(401, 'err.passkeyVerificationFailed') });
    const { user } = renderApp('/');
    await user.click(await screen.findByRole('button', { name: 'Sign in with a passkey' }, APP_LOAD));
    expect(await screen.findByRole('alert')).toHaveTextContent('Error: The passkey could not be verified');
  });

  it('speaks German', async () => {
    await i18n.changeLanguage('de');
    vi.mocked(startAuthentication).mockRejectedValue(promptClosed());
    passkeyServer();
    const { user } = renderApp('/');
    await user.click(await screen.findByRole('button', { name: 'Mit einem Passkey anmelden' }, APP_LOAD));
    expect(await screen.findByRole('status')).toHaveTextContent('Es wurde kein Passkey verwendet.');
  });
});

describe('admin login with a passkey', () => {
  it('is offered when admins may, and lands on the console with no second factor to give', async () => {
    const api = passkeyServer(
      {
        // The passkey proved both factors: the account's TOTP asks for nothing more.
        'POST /api/admin/webauthn/passwordless/verify': data(
          AdminPasswordlessVerifyResponse,
          adminSession({ TotpEnabled: true, AdminTotpVerified: true, HasPasskeys: true }),
        ),
        'GET /api/admin/status': data(AdminStatusResponse, adminStatus()),
      },
      true,
    );
    const { user } = renderApp('/admin');
    await user.click(await screen.findByRole('button', { name: 'Sign in with a passkey' }, APP_LOAD));
    await waitFor(() => expect(currentPath()).toBe('/admin/home'));
    expect(window.sessionStorage.getItem(SESSION_KEYS.adminSecondFactor)).toBeNull();
    expect(api.calls('POST /api/admin/webauthn/passwordless/verify')[0]?.body).toEqual({
      CeremonyID: 'ceremony-1',
      Response: ASSERTION,
    });
  });

  it('is not offered to admins when only users may', async () => {
    passkeyServer();
    const { queryClient } = renderApp('/admin');
    await screen.findByLabelText('Username', undefined, APP_LOAD);
    await systemStatusRead(queryClient);
    expect(screen.queryByRole('button', { name: 'Sign in with a passkey' })).not.toBeInTheDocument();
  });
});

describe('second factor by passkey', () => {
  it('offers "Use a passkey" when the account has passkeys, and lands where a code would', async () => {
    const api = installTypedFakeApi(
      {
        'POST /api/webauthn/authentication/options': data(AuthenticationOptionsResponse, AUTHENTICATION_OPTIONS),
        'POST /api/webauthn/authentication/verify': data(AuthenticationVerifyResponse, { Outcome: 'SignedIn' }),
        'GET /api/status': data(UserStatusResponse, userStatus()),
      },
      { admin: false },
    );
    const { user } = renderApp('/otp/verify');
    await user.click(await screen.findByRole('button', { name: 'Use a passkey' }, APP_LOAD));
    await waitFor(() => expect(currentPath()).toBe('/home'));
    expect(api.calls('POST /api/webauthn/authentication/verify')[0]?.body).toEqual({ Response: ASSERTION });
    // The options asked for when the screen opened served the first try.
    expect(api.calls('POST /api/webauthn/authentication/options')).toHaveLength(1);
  });

  it('asks for fresh options on a second try after a closed prompt', async () => {
    vi.mocked(startAuthentication).mockRejectedValueOnce(promptClosed());
    const api = installTypedFakeApi(
      {
        'POST /api/admin/webauthn/authentication/options': data(AuthenticationOptionsResponse, AUTHENTICATION_OPTIONS),
        'POST /api/admin/webauthn/authentication/verify': data(AuthenticationVerifyResponse, { Outcome: 'SignedIn' }),
      },
      { admin: true },
    );
    window.sessionStorage.setItem(
      SESSION_KEYS.admin,
      JSON.stringify(adminSession({ TotpEnabled: true, AdminTotpVerified: true })),
    );
    window.sessionStorage.setItem(SESSION_KEYS.adminSecondFactor, '/admin/otp/verify');
    const { user } = renderApp('/admin/otp/verify');
    await user.click(await screen.findByRole('button', { name: 'Use a passkey' }, APP_LOAD));
    expect(await screen.findByRole('status')).toHaveTextContent('No passkey was used.');
    await user.click(screen.getByRole('button', { name: 'Use a passkey' }));
    await waitFor(() => expect(currentPath()).toBe('/admin/home'));
    expect(api.calls('POST /api/admin/webauthn/authentication/options')).toHaveLength(2);
  });

  it('asks for a code only when the account has no passkeys (409 err.noPasskeys)', async () => {
    const api = installTypedFakeApi(
      { 'POST /api/webauthn/authentication/options': apiError(409, 'err.noPasskeys') },
      { admin: false },
    );
    renderApp('/otp/verify');
    await screen.findByLabelText('Authentication code', undefined, APP_LOAD);
    await waitFor(() => expect(api.calls('POST /api/webauthn/authentication/options')).toHaveLength(1));
    expect(screen.queryByRole('button', { name: 'Use a passkey' })).not.toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });
});
