import { screen, waitFor, within } from '@testing-library/react';
import type { UserEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { AdminResponse, AdminSessionListResponse } from '@postern/protocol';
import { apiError, data, EMPTY_OK } from '@/test-support/typed-fake-api';
import { adminRecord } from '@/test-support/records/admins';
import { ADMINS, adminsTable, openAdmins } from '@/test-support/screens/admins';

async function openCreate(user: UserEvent) {
  await adminsTable();
  await user.click(screen.getByRole('button', { name: 'Create admin' }));
  return screen.findByRole('dialog', { name: 'Create admin' });
}

const save = (user: UserEvent, dialog: HTMLElement) => user.click(within(dialog).getByRole('button', { name: 'Save' }));

// Whole-app renders with typing are slow on a busy machine; these are behaviour tests, not timing tests.
describe('admins screen: create', { timeout: 30_000 }, () => {
  it('shows the spec’s validation messages and sends nothing', async () => {
    const { api, user } = openAdmins();
    const dialog = await openCreate(user);
    await user.type(within(dialog).getByLabelText(/^Password/), 'short');
    await user.type(within(dialog).getByLabelText('Confirm password'), 'other');
    await save(user, dialog);
    expect(await within(dialog).findAllByText('This field is required')).toHaveLength(2);
    expect(within(dialog).getByText('Must be between 8 and 64 characters')).toBeVisible();
    expect(within(dialog).getByText("Passwords don't match")).toBeVisible();
    expect(api.calls('POST /api/admin/admins')).toHaveLength(0);
  });

  it('requires a password for a new local admin', async () => {
    const { user } = openAdmins();
    const dialog = await openCreate(user);
    await user.type(within(dialog).getByLabelText(/^Name/), 'Ada');
    await user.type(within(dialog).getByLabelText(/^Username/), 'ada');
    await save(user, dialog);
    expect(await within(dialog).findByText('Must be between 8 and 64 characters')).toBeVisible();
  });

  it('creates a local admin with 2FA and sign-in on by default, says so and closes', async () => {
    const { api, user } = openAdmins({
      'POST /api/admin/admins': data(AdminResponse, adminRecord({ ID: 'new', Name: 'Ada', UserName: 'ada' })),
    });
    const dialog = await openCreate(user);
    expect(within(dialog).getByRole('checkbox', { name: 'Two-factor authentication (TOTP)' })).toBeChecked();
    expect(within(dialog).getByRole('checkbox', { name: 'Login enabled' })).toBeChecked();
    await user.type(within(dialog).getByLabelText(/^Name/), 'Ada');
    await user.type(within(dialog).getByLabelText(/^Username/), 'ada');
    await user.type(within(dialog).getByLabelText(/^Password/), 'correct-horse');
    await user.type(within(dialog).getByLabelText('Confirm password'), 'correct-horse');
    await save(user, dialog);
    expect(await screen.findByText('Admin Ada created')).toBeVisible();
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(api.calls('POST /api/admin/admins')[0]?.body).toEqual({
      Name: 'Ada',
      UserName: 'ada',
      AuthType: 'local',
      TOTPEnabled: true,
      LoginEnabled: true,
      PlainPassword: 'correct-horse',
      ConfirmPassword: 'correct-horse',
      ThirdPartyAuth: null,
    });
    await waitFor(() => expect(api.calls('GET /api/admin/admins')).toHaveLength(2));
  });

  it('asks an LDAP admin for the DN instead of a password', async () => {
    const { api, user } = openAdmins({ 'POST /api/admin/admins': data(AdminResponse, adminRecord({ ID: 'new' })) });
    const dialog = await openCreate(user);
    await user.selectOptions(within(dialog).getByRole('combobox', { name: /^Authentication type/ }), 'LDAP');
    expect(within(dialog).queryByLabelText(/^Password/)).not.toBeInTheDocument();
    await user.type(within(dialog).getByLabelText(/^Name/), 'Ada');
    await user.type(within(dialog).getByLabelText(/^Username/), 'ada');
    await save(user, dialog);
    expect(await within(dialog).findByText('An LDAP user needs a distinguished name (DN)')).toBeVisible();
    await user.type(within(dialog).getByLabelText(/^Distinguished name/), 'cn=ada,dc=example');
    await save(user, dialog);
    await waitFor(() => expect(api.calls('POST /api/admin/admins')).toHaveLength(1));
    expect(api.calls('POST /api/admin/admins')[0]?.body).toMatchObject({
      AuthType: 'LDAP',
      ThirdPartyAuth: { DN: 'cn=ada,dc=example' },
    });
    expect(api.calls('POST /api/admin/admins')[0]?.body).not.toHaveProperty('PlainPassword');
  });

  it('offers no TOTP for a SAML admin and sends it off', async () => {
    const { api, user } = openAdmins({ 'POST /api/admin/admins': data(AdminResponse, adminRecord({ ID: 'new' })) });
    const dialog = await openCreate(user);
    await user.selectOptions(within(dialog).getByRole('combobox', { name: /^Authentication type/ }), 'SAML');
    expect(
      within(dialog).queryByRole('checkbox', { name: 'Two-factor authentication (TOTP)' }),
    ).not.toBeInTheDocument();
    await user.type(within(dialog).getByLabelText(/^Name/), 'Sam');
    await user.type(within(dialog).getByLabelText(/^Username/), 'sam');
    await save(user, dialog);
    await waitFor(() => expect(api.calls('POST /api/admin/admins')).toHaveLength(1));
    expect(api.calls('POST /api/admin/admins')[0]?.body).toMatchObject({ AuthType: 'SAML', TOTPEnabled: false });
  });

  it('shows a taken username on the Username field and keeps the dialog open', async () => {
    const { user } = openAdmins({ 'POST /api/admin/admins': apiError(409, 'err.adminNameExists', 'UserName') });
    const dialog = await openCreate(user);
    await user.type(within(dialog).getByLabelText(/^Name/), 'Ada');
    await user.type(within(dialog).getByLabelText(/^Username/), 'grace');
    await user.type(within(dialog).getByLabelText(/^Password/), 'correct-horse');
    await user.type(within(dialog).getByLabelText('Confirm password'), 'correct-horse');
    await save(user, dialog);
    expect(await within(dialog).findByText('An admin with that username already exists')).toBeVisible();
    expect(within(dialog).getByLabelText(/^Username/)).toHaveAttribute('aria-invalid', 'true');
  });
});

describe('admins screen: edit', { timeout: 30_000 }, () => {
  it('fixes username and type, keeps an empty password, and sends the update with the ID', async () => {
    const { api, user } = openAdmins({ 'PUT /api/admin/admins/:id': data(AdminResponse, ADMINS[2]!) });
    await adminsTable();
    await user.click(screen.getByRole('button', { name: 'Edit Linus' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit admin Linus' });
    expect(within(dialog).getByLabelText(/^Username/)).toBeDisabled();
    expect(within(dialog).getByRole('combobox', { name: /^Authentication type/ })).toBeDisabled();
    await user.clear(within(dialog).getByLabelText(/^Name/));
    await user.type(within(dialog).getByLabelText(/^Name/), 'Linus T');
    await user.click(within(dialog).getByRole('checkbox', { name: 'Login enabled' }));
    await save(user, dialog);
    expect(await screen.findByText('Admin Linus T updated')).toBeVisible();
    const call = api.calls('PUT /api/admin/admins/:id')[0];
    expect(call?.params).toEqual({ id: 'admin-linus' });
    expect(call?.body).toEqual({
      ID: 'admin-linus',
      Name: 'Linus T',
      UserName: 'linus',
      AuthType: 'SAML',
      TOTPEnabled: false,
      LoginEnabled: false,
      ThirdPartyAuth: null,
    });
  });

  it('does not let you turn off your own 2FA or sign-in, and says why', async () => {
    const { user } = openAdmins();
    await adminsTable();
    await user.click(screen.getByRole('button', { name: 'Edit Grace Hopper' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit admin Grace Hopper' });
    expect(within(dialog).getByRole('checkbox', { name: 'Two-factor authentication (TOTP)' })).toBeDisabled();
    expect(within(dialog).getByText('You cannot disable 2FA on your own account')).toBeVisible();
    expect(within(dialog).getByRole('checkbox', { name: 'Login enabled' })).toBeDisabled();
  });

  it('shows a refusal naming no field above the form', async () => {
    const { user } = openAdmins({ 'PUT /api/admin/admins/:id': apiError(400, 'err.cannotChangeIdentity') });
    await adminsTable();
    await user.click(screen.getByRole('button', { name: 'Edit Linus' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit admin Linus' });
    await save(user, dialog);
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'Cannot change username, password or backend type',
    );
    expect(screen.getByRole('dialog', { name: 'Edit admin Linus' })).toBeVisible();
  });
});

describe('admins screen: view and sessions', { timeout: 30_000 }, () => {
  const sessions = [
    {
      ID: 's-own',
      Created: new Date(Date.now() - 600_000).toISOString(),
      Ends: new Date(Date.now() + 3_600_000).toISOString(),
      IPAddress: '192.0.2.1',
      Current: true,
    },
    {
      ID: 's-other',
      Created: new Date(Date.now() - 7_200_000).toISOString(),
      Ends: new Date(Date.now() + 1_800_000).toISOString(),
      IPAddress: '198.51.100.7',
      Current: false,
    },
  ];

  it('shows the details and sessions, and ends one after confirmation', async () => {
    const { api, user } = openAdmins({
      'GET /api/admin/admins/:id/sessions': data(AdminSessionListResponse, sessions),
      'DELETE /api/admin/adminsessions/:id': EMPTY_OK,
    });
    await adminsTable();
    await user.click(screen.getByRole('button', { name: 'View Grace Hopper' }));
    const dialog = await screen.findByRole('dialog', { name: 'Admin Grace Hopper' });
    expect(dialog).toHaveTextContent('On, authenticator set up');
    const table = await within(dialog).findByRole('table', { name: 'Sessions of Grace Hopper' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows[0]).toHaveTextContent('192.0.2.1This session');
    expect(rows[1]).toHaveTextContent('198.51.100.7');
    expect(api.calls('GET /api/admin/admins/:id/sessions')[0]?.params).toEqual({ id: 'admin-grace' });

    await user.click(within(table).getByRole('button', { name: 'End session from 198.51.100.7' }));
    const confirm = await screen.findByRole('dialog', { name: 'End session' });
    expect(confirm).toHaveTextContent('End the admin session from 198.51.100.7?');
    await user.click(within(confirm).getByRole('button', { name: 'End session' }));
    expect(await screen.findByText('Admin session ended')).toBeVisible();
    expect(api.calls('DELETE /api/admin/adminsessions/:id')[0]?.params).toEqual({ id: 's-other' });
    await waitFor(() => expect(api.calls('GET /api/admin/admins/:id/sessions')).toHaveLength(2));
  });

  it.each([
    [
      'an LDAP admin without a second factor who cannot sign in and never has',
      adminRecord({
        AuthType: 'LDAP',
        ThirdPartyAuth: { DN: 'uid=grace,ou=admins,dc=example,dc=org' },
        TOTPEnabled: false,
        LoginEnabled: false,
        LastLogin: null,
      }),
      {
        'Distinguished name (DN)': 'uid=grace,ou=admins,dc=example,dc=org',
        'Two-factor authentication (TOTP)': 'No',
        'Login enabled': 'No',
        'Last login': 'Never',
      },
    ],
    [
      'a local admin whose authenticator is not set up yet',
      adminRecord({ TOTPEnabled: true, TOTPVerified: false }),
      { 'Two-factor authentication (TOTP)': 'On, not set up yet', 'Login enabled': 'Yes' },
    ],
    [
      'a SAML admin, whose second factor is the identity provider’s',
      adminRecord({ AuthType: 'SAML', TOTPEnabled: false }),
      { 'Authentication type': 'SAML', 'Two-factor authentication (TOTP)': 'At the identity provider' },
    ],
  ])('shows %s', async (_name, admin, expected) => {
    const { user } = openAdmins({ 'GET /api/admin/admins/:id/sessions': data(AdminSessionListResponse, []) }, [admin]);
    await adminsTable();
    await user.click(screen.getByRole('button', { name: 'View Grace Hopper' }));
    const dialog = await screen.findByRole('dialog', { name: 'Admin Grace Hopper' });
    const shown = Object.fromEntries(
      within(dialog)
        .getAllByRole('term')
        .map((term) => [term.textContent, term.nextElementSibling?.textContent]),
    );
    expect(shown).toMatchObject(expected);
    if (admin.AuthType !== 'LDAP') expect(shown).not.toHaveProperty('Distinguished name (DN)');
  });

  it('warns that ending your current session signs you out, and shows a refusal in the Error dialog', async () => {
    const { user } = openAdmins({
      'GET /api/admin/admins/:id/sessions': data(AdminSessionListResponse, sessions),
      'DELETE /api/admin/adminsessions/:id': apiError(404, 'err.notFound'),
    });
    await adminsTable();
    await user.click(screen.getByRole('button', { name: 'View Grace Hopper' }));
    const dialog = await screen.findByRole('dialog', { name: 'Admin Grace Hopper' });
    await user.click(await within(dialog).findByRole('button', { name: 'End session from 192.0.2.1' }));
    const confirm = await screen.findByRole('dialog', { name: 'End session' });
    expect(confirm).toHaveTextContent('This is your current session (from 192.0.2.1): ending it signs you out.');
    await user.click(within(confirm).getByRole('button', { name: 'End session' }));
    const error = await screen.findByRole('dialog', { name: 'Error' });
    expect(within(error).getByRole('alert')).toHaveTextContent('Not found');
  });
});
