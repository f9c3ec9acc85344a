import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import i18n from '../../i18n/i18n';
import { installFakeApi, type FakeHandler } from '../../test-support/fake-api';
import { signInUser, userStatus } from '../../test-support/fixtures';
import { renderApp } from '../../test-support/render-app';

/** Loading the real zxcvbn dictionaries takes a while the first time. */
const DICTIONARY_TIMEOUT = { timeout: 20_000 };

function openHome(routes: Record<string, FakeHandler> = {}, authType: 'local' | 'SAML' | 'LDAP' = 'local') {
  const api = installFakeApi({ 'GET /api/status': { body: { data: userStatus({ AuthType: authType }) } }, ...routes });
  signInUser({ AuthType: authType });
  return { api, ...renderApp('/home') };
}

async function openDialog(user: ReturnType<typeof renderApp>['user']) {
  await user.click(await screen.findByRole('button', { name: 'Change password' }));
  return screen.findByRole('dialog', { name: 'Change password' });
}

async function fill(user: ReturnType<typeof renderApp>['user'], dialog: HTMLElement, values: Record<string, string>) {
  for (const [label, value] of Object.entries(values)) {
    const field = within(dialog).getByLabelText(label, { selector: 'input' });
    await user.clear(field);
    // Pasted rather than typed: one input event instead of one (and one strength check) per character.
    if (value !== '') await user.paste(value);
  }
}

const submit = (user: ReturnType<typeof renderApp>['user'], dialog: HTMLElement) =>
  user.click(within(dialog).getByRole('button', { name: 'Change password' }));

describe('change-password button', () => {
  it('is there for a local account', async () => {
    openHome();
    expect(await screen.findByRole('button', { name: 'Change password' })).toBeVisible();
  });

  it.each(['SAML', 'LDAP'] as const)('is not there for a %s account', async (authType) => {
    openHome({}, authType);
    await screen.findByText('Hello, Ada Lovelace');
    await screen.findByRole('button', { name: 'Log out' });
    expect(screen.queryByRole('button', { name: 'Change password' })).not.toBeInTheDocument();
  });

  it('is on the new dashboard as well', async () => {
    installFakeApi({ 'GET /api/status': { body: { data: userStatus({ NewUserDashboard: true }) } } });
    signInUser({ NewUserDashboard: true });
    renderApp('/home/new');
    expect(await screen.findByRole('button', { name: 'Change password' })).toBeVisible();
  });
});

describe('change-password dialog', () => {
  it('requires all three fields before calling the server', async () => {
    const { api, user } = openHome();
    const dialog = await openDialog(user);
    await submit(user, dialog);
    expect(await within(dialog).findByText('You must enter your current password')).toBeVisible();
    expect(within(dialog).getByText('You must enter a new password')).toBeVisible();
    expect(within(dialog).getByText('You must confirm the new password')).toBeVisible();
    expect(api.calls('PUT /api/password')).toHaveLength(0);
  });

  it.each([
    ['short', 'Must be between 8 and 64 characters'],
    ['x'.repeat(65), 'Must be between 8 and 64 characters'],
  ])('refuses the new password "%s": %s', async (password, message) => {
    const { api, user } = openHome();
    const dialog = await openDialog(user);
    await fill(user, dialog, { 'Current password': 'old-password', 'New password': password });
    await submit(user, dialog);
    expect(await within(dialog).findByText(message)).toBeVisible();
    expect(api.calls('PUT /api/password')).toHaveLength(0);
  });

  it('refuses a confirmation that differs', async () => {
    const { api, user } = openHome();
    const dialog = await openDialog(user);
    await fill(user, dialog, {
      'Current password': 'old-password',
      'New password': 'a-new-long-password',
      'Confirm password': 'a-new-long-passwort',
    });
    await submit(user, dialog);
    expect(await within(dialog).findByText("Passwords don't match")).toBeVisible();
    expect(api.calls('PUT /api/password')).toHaveLength(0);
  });

  it(
    'rates a weak and a strong password with the real dictionaries',
    async () => {
      const { user } = openHome();
      const dialog = await openDialog(user);
      await fill(user, dialog, { 'New password': 'password' });
      const meter = within(dialog).getByRole('progressbar', { name: 'Password strength' });
      await waitFor(() => expect(meter).toHaveAttribute('aria-valuetext', 'Very weak'), DICTIONARY_TIMEOUT);
      expect(meter).toHaveAttribute('aria-valuenow', '0');
      expect(within(dialog).getByText('Very weak')).toBeVisible();

      await fill(user, dialog, { 'New password': 'correct-horse-battery-staple-42!' });
      const strongMeter = within(dialog).getByRole('progressbar', { name: 'Password strength' });
      await waitFor(() => expect(strongMeter).toHaveAttribute('aria-valuetext', 'Very strong'));
      expect(strongMeter).toHaveAttribute('aria-valuenow', '4');
      expect(within(dialog).getByText('Very strong')).toBeVisible();
    },
    DICTIONARY_TIMEOUT.timeout + 10_000,
  );

  it(
    "rates a password made of the user's own name weaker",
    async () => {
      const { user } = openHome();
      const dialog = await openDialog(user);
      // Rated Acceptable (2) on its own; Weak (1) for Ada Lovelace.
      await fill(user, dialog, { 'New password': 'lovelace1815' });
      const meter = within(dialog).getByRole('progressbar', { name: 'Password strength' });
      await waitFor(() => expect(meter).toHaveAttribute('aria-valuetext', 'Weak'), DICTIONARY_TIMEOUT);
    },
    DICTIONARY_TIMEOUT.timeout + 10_000,
  );

  it(
    'uses the German dictionary as well when the UI is German',
    async () => {
      await i18n.changeLanguage('de');
      const { user } = openHome();
      await user.click(await screen.findByRole('button', { name: 'Passwort ändern' }));
      const dialog = await screen.findByRole('dialog', { name: 'Passwort ändern' });
      // 'Sommerregen' is Strong (3) to English dictionaries, Weak (1) with the German one.
      await fill(user, dialog, { 'Neues Passwort': 'Sommerregen' });
      const meter = within(dialog).getByRole('progressbar', { name: 'Passwortstärke' });
      await waitFor(() => expect(meter).toHaveAttribute('aria-valuetext', 'Schwach'), DICTIONARY_TIMEOUT);
    },
    DICTIONARY_TIMEOUT.timeout + 10_000,
  );

  it('changes the password, closes, and says so in a notification', async () => {
    const { api, user } = openHome({ 'PUT /api/password': { body: { data: null } } });
    const dialog = await openDialog(user);
    await fill(user, dialog, {
      'Current password': 'old-password',
      'New password': 'correct-horse-battery-staple-42!',
      'Confirm password': 'correct-horse-battery-staple-42!',
    });
    await submit(user, dialog);
    expect(await screen.findByText('Password changed successfully')).toBeVisible();
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(api.calls('PUT /api/password')[0]?.body).toEqual({
      ExistingPassword: 'old-password',
      NewPassword: 'correct-horse-battery-staple-42!',
    });
  });

  it('shows a wrong current password on its field, inside the dialog', async () => {
    const { user } = openHome({
      'PUT /api/password': { status: 400, body: { Err: 'err.invalidCredentials', Extra: 'ExistingPassword' } },
    });
    const dialog = await openDialog(user);
    await fill(user, dialog, {
      'Current password': 'not-my-password',
      'New password': 'correct-horse-battery-staple-42!',
      'Confirm password': 'correct-horse-battery-staple-42!',
    });
    await submit(user, dialog);
    expect(await within(dialog).findByText('Your current password is not correct')).toBeVisible();
    expect(within(dialog).queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.queryByText('Password changed successfully')).not.toBeInTheDocument();
  });

  it.each([
    [{ status: 500, body: { Err: 'err.internalServerError' } }, 'Error: Internal server error'],
    [
      { status: 429, body: { Err: 'err.tooManyRequests', Extra: '40s' } },
      'Error: Too many requests, please try again in 40 seconds',
    ],
  ])('shows any other failure inside the dialog (%o)', async (answer, message) => {
    const { user } = openHome({ 'PUT /api/password': answer });
    const dialog = await openDialog(user);
    await fill(user, dialog, {
      'Current password': 'old-password',
      'New password': 'correct-horse-battery-staple-42!',
      'Confirm password': 'correct-horse-battery-staple-42!',
    });
    await submit(user, dialog);
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(message);
    expect(screen.getByRole('dialog', { name: 'Change password' })).toBeVisible();
  });

  it('starts empty every time it opens', async () => {
    const { user } = openHome();
    let dialog = await openDialog(user);
    await fill(user, dialog, { 'Current password': 'typed' });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    dialog = await openDialog(user);
    await fill(user, dialog, { 'Current password': 'typed again' });
    await user.click(within(dialog).getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    dialog = await openDialog(user);
    expect(within(dialog).getByLabelText('Current password', { selector: 'input' })).toHaveValue('');
  });
});
