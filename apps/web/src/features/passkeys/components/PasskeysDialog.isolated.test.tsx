import { act, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { browserSupportsWebAuthn, startRegistration } from '@simplewebauthn/browser';
import {
  PasskeyListResponse,
  PasskeyResponse,
  RegistrationOptionsResponse,
  RegistrationVerifyResponse,
  UserStatusResponse,
  type Passkey,
} from '@postern/protocol';
import i18n from '@/i18n/i18n';
import { signInUser, userStatus } from '@/test-support/fixtures';
import { APP_LOAD, renderApp } from '@/test-support/render-app';
import {
  apiError,
  data,
  EMPTY_OK,
  installTypedFakeApi,
  type FakeRoute,
  type TypedHandler,
} from '@/test-support/typed-fake-api';
import { ATTESTATION, passkeyRecord, REGISTRATION_OPTIONS } from '@/test-support/records/passkeys';

// jsdom has no WebAuthn: the browser library is replaced (this file runs in the isolated project).
vi.mock('@simplewebauthn/browser');

const LAPTOP = passkeyRecord();
const PHONE = passkeyRecord({ ID: 'pk-2', Name: 'Phone', BackedUp: true, LastUsedAt: null });

/** Ada, signed in locally, on /home, holding `passkeys`; opens her Passkeys dialog. */
async function openPasskeys(
  routes: Partial<Record<FakeRoute, TypedHandler>> = {},
  passkeys: Passkey[] = [LAPTOP, PHONE],
) {
  const api = installTypedFakeApi(
    {
      'GET /api/status': data(UserStatusResponse, userStatus()),
      'GET /api/webauthn/credentials': data(PasskeyListResponse, passkeys),
      ...routes,
    },
    { admin: false },
  );
  signInUser();
  const app = renderApp('/home');
  await app.user.click(await screen.findByRole('button', { name: 'Passkeys' }, APP_LOAD));
  const dialog = await screen.findByRole('dialog', { name: 'Your passkeys' });
  return { api, ...app, dialog };
}

beforeEach(() => {
  vi.mocked(browserSupportsWebAuthn).mockReturnValue(true);
  vi.mocked(startRegistration).mockReset().mockResolvedValue(ATTESTATION);
});

describe('managing one’s own passkeys', () => {
  it('lists each passkey with when it was added and last used, and marks a synced one', async () => {
    const { dialog } = await openPasskeys();
    const list = await within(dialog).findByRole('list', { name: 'Your passkeys' });
    const [laptop, phone] = within(list).getAllByRole('listitem');
    expect(laptop).toHaveTextContent('Work laptop');
    expect(laptop).toHaveTextContent('Added a month ago · Last used a day ago');
    expect(laptop).not.toHaveTextContent('Synced');
    expect(phone).toHaveTextContent('Phone');
    expect(phone).toHaveTextContent('Synced');
    expect(phone).toHaveTextContent('Never used');
  });

  it('adds a passkey through the browser’s ceremony and refreshes the list', async () => {
    const { api, user, dialog } = await openPasskeys({
      'POST /api/webauthn/registration/options': data(RegistrationOptionsResponse, REGISTRATION_OPTIONS),
      'POST /api/webauthn/registration/verify': data(RegistrationVerifyResponse, {
        Outcome: 'Added',
        Passkey: passkeyRecord({ ID: 'pk-3', Name: 'Key' }),
      }),
    });
    await user.click(await within(dialog).findByRole('button', { name: 'Add a passkey' }));
    const name = within(dialog).getByRole('textbox', { name: 'Passkey name' });
    await user.type(name, 'Key');
    await user.click(within(dialog).getByRole('button', { name: 'Create passkey' }));
    expect(await screen.findByText('Passkey added.')).toBeVisible();
    expect(api.calls('POST /api/webauthn/registration/verify')[0]?.body).toEqual({
      Name: 'Key',
      Response: ATTESTATION,
    });
    await waitFor(() => expect(api.calls('GET /api/webauthn/credentials')).toHaveLength(2));
  });

  it('explains that an old sign-in cannot change passkeys (403 err.recentSignInRequired)', async () => {
    const { user, dialog } = await openPasskeys({
      'POST /api/webauthn/registration/options': apiError(403, 'err.recentSignInRequired'),
    });
    await user.click(await within(dialog).findByRole('button', { name: 'Add a passkey' }));
    await user.type(within(dialog).getByRole('textbox', { name: 'Passkey name' }), 'Key');
    await user.click(within(dialog).getByRole('button', { name: 'Create passkey' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'passkeys can only be changed within 10 minutes of signing in. Sign in again to change your passkeys.',
    );
    expect(vi.mocked(startRegistration)).not.toHaveBeenCalled();
  });

  it('renames a passkey', async () => {
    const { api, user, dialog } = await openPasskeys({
      'PUT /api/webauthn/credentials/:id': data(PasskeyResponse, { ...LAPTOP, Name: 'Old laptop' }),
    });
    await user.click(await within(dialog).findByRole('button', { name: 'Rename Work laptop' }));
    const name = within(dialog).getByRole('textbox', { name: 'Passkey name' });
    expect(name).toHaveValue('Work laptop');
    await user.clear(name);
    await user.type(name, 'Old laptop');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Passkey renamed.')).toBeVisible();
    const [rename] = api.calls('PUT /api/webauthn/credentials/:id');
    expect(rename?.params).toEqual({ id: 'pk-1' });
    expect(rename?.body).toEqual({ Name: 'Old laptop' });
  });

  it('removes a passkey only after confirmation', async () => {
    const { api, user, dialog } = await openPasskeys({ 'DELETE /api/webauthn/credentials/:id': EMPTY_OK });
    await user.click(await within(dialog).findByRole('button', { name: 'Remove Phone' }));
    const confirm = await screen.findByRole('dialog', { name: 'Remove passkey' });
    expect(confirm).toHaveTextContent('Remove the passkey “Phone”?');
    expect(api.calls('DELETE /api/webauthn/credentials/:id')).toHaveLength(0);
    await user.click(within(confirm).getByRole('button', { name: 'Remove' }));
    expect(await screen.findByText('Passkey removed.')).toBeVisible();
    expect(api.calls('DELETE /api/webauthn/credentials/:id')[0]?.params).toEqual({ id: 'pk-2' });
  });

  it('explains a refused removal of an old sign-in too, in German', async () => {
    const { user, dialog } = await openPasskeys({
      'DELETE /api/webauthn/credentials/:id': apiError(403, 'err.recentSignInRequired'),
    });
    await act(() => i18n.changeLanguage('de'));
    await user.click(await within(dialog).findByRole('button', { name: 'Phone entfernen' }));
    const confirm = await screen.findByRole('dialog', { name: 'Passkey entfernen' });
    await user.click(within(confirm).getByRole('button', { name: 'Entfernen' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'Melden Sie sich erneut an, um Ihre Passkeys zu ändern.',
    );
  });

  it('says so when there are none', async () => {
    const { dialog } = await openPasskeys({}, []);
    expect(await within(dialog).findByText('You have no passkeys yet.')).toBeVisible();
  });
});
