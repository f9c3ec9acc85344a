import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { browserSupportsWebAuthn, startRegistration } from '@simplewebauthn/browser';
import {
  OtpGenerateResponse,
  RegistrationOptionsResponse,
  RegistrationVerifyResponse,
  UserStatusResponse,
} from '@postern/protocol';
import i18n from '@/i18n/i18n';
import { userStatus } from '@/test-support/fixtures';
import { APP_LOAD, currentPath, renderApp } from '@/test-support/render-app';
import { apiError, data, installTypedFakeApi, type FakeRoute, type TypedHandler } from '@/test-support/typed-fake-api';
import { ATTESTATION, passkeyRecord, promptClosed, REGISTRATION_OPTIONS } from '@/test-support/records/passkeys';

// jsdom has no WebAuthn: the browser library is replaced (this file runs in the isolated project).
vi.mock('@simplewebauthn/browser');

const SECRET = {
  Secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
  URL: 'otpauth://totp/Postern:ada?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Postern',
};

/** A user sign-in waiting to enrol its second factor. */
function onboardingServer(routes: Partial<Record<FakeRoute, TypedHandler>> = {}) {
  return installTypedFakeApi(
    {
      'GET /api/otp/generate': data(OtpGenerateResponse, SECRET),
      'POST /api/webauthn/registration/options': data(RegistrationOptionsResponse, REGISTRATION_OPTIONS),
      'POST /api/webauthn/registration/verify': data(RegistrationVerifyResponse, {
        Outcome: 'Enrolled',
        Passkey: passkeyRecord({ Name: 'Phone', LastUsedAt: null }),
      }),
      'GET /api/status': data(UserStatusResponse, userStatus()),
      ...routes,
    },
    { admin: false },
  );
}

beforeEach(() => {
  vi.mocked(browserSupportsWebAuthn).mockReturnValue(true);
  vi.mocked(startRegistration).mockReset().mockResolvedValue(ATTESTATION);
});

describe('second-factor onboarding with a passkey', () => {
  it('offers a passkey or an app first, making no secret before the app is chosen', async () => {
    const api = onboardingServer();
    renderApp('/otp/onboard');
    expect(await screen.findByRole('button', { name: /Set up a passkey/ }, APP_LOAD)).toBeVisible();
    expect(screen.getByRole('button', { name: /Use an authenticator app/ })).toBeVisible();
    expect(api.calls('GET /api/otp/generate')).toHaveLength(0);
  });

  it('names the passkey, runs the ceremony and, once enrolled, lands on the home saying so', async () => {
    const api = onboardingServer();
    const { user } = renderApp('/otp/onboard');
    await user.click(await screen.findByRole('button', { name: /Set up a passkey/ }, APP_LOAD));
    const name = screen.getByRole('textbox', { name: 'Passkey name' });
    expect(name).toHaveValue('My passkey');
    await user.clear(name);
    await user.type(name, '  Phone ');
    await user.click(screen.getByRole('button', { name: 'Create passkey' }));
    await waitFor(() => expect(currentPath()).toBe('/home'));
    expect(vi.mocked(startRegistration)).toHaveBeenCalledExactlyOnceWith({ optionsJSON: REGISTRATION_OPTIONS });
    expect(api.calls('POST /api/webauthn/registration/verify')[0]?.body).toEqual({
      Name: 'Phone',
      Response: ATTESTATION,
    });
    expect(await screen.findByText('Your passkey is set up.')).toBeVisible();
  });

  it('asks for a name before anything is sent', async () => {
    const api = onboardingServer();
    const { user } = renderApp('/otp/onboard');
    await user.click(await screen.findByRole('button', { name: /Set up a passkey/ }, APP_LOAD));
    await user.clear(screen.getByRole('textbox', { name: 'Passkey name' }));
    await user.click(screen.getByRole('button', { name: 'Create passkey' }));
    expect(await screen.findByText('You must give the passkey a name')).toBeVisible();
    expect(api.calls('POST /api/webauthn/registration/options')).toHaveLength(0);
  });

  it('stays calm on a closed prompt and lets the person choose the app instead', async () => {
    vi.mocked(startRegistration).mockRejectedValue(promptClosed());
    const api = onboardingServer();
    const { user } = renderApp('/otp/onboard');
    await user.click(await screen.findByRole('button', { name: /Set up a passkey/ }, APP_LOAD));
    await user.click(screen.getByRole('button', { name: 'Create passkey' }));
    expect(await screen.findByRole('status')).toHaveTextContent('No passkey was used.');
    expect(api.calls('POST /api/webauthn/registration/verify')).toHaveLength(0);
    expect(currentPath()).toBe('/otp/onboard');

    await user.click(screen.getByRole('button', { name: 'Choose another way' }));
    await user.click(screen.getByRole('button', { name: /Use an authenticator app/ }));
    expect(await screen.findByRole('img', { name: 'QR code to scan with your authenticator app' })).toBeVisible();
    expect(api.calls('GET /api/otp/generate')).toHaveLength(1);
  });

  it('goes back to the login when the pending sign-in has expired', async () => {
    onboardingServer({ 'POST /api/webauthn/registration/options': apiError(401, 'err.invalidSession') });
    const { user } = renderApp('/otp/onboard');
    await user.click(await screen.findByRole('button', { name: /Set up a passkey/ }, APP_LOAD));
    await user.click(screen.getByRole('button', { name: 'Create passkey' }));
    await waitFor(() => expect(currentPath()).toBe('/?error=err.sessionExpired'));
  });

  it('speaks German', async () => {
    await i18n.changeLanguage('de');
    onboardingServer();
    renderApp('/otp/onboard');
    const choice = (await screen.findByRole('button', { name: /Passkey einrichten/ }, APP_LOAD)).parentElement;
    expect(within(choice ?? document.body).getByRole('button', { name: /Authenticator-App verwenden/ })).toBeVisible();
  });
});
