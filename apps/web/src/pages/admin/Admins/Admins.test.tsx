import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { SessionsEndedResponse } from '@postern/protocol';
import { apiError, data, EMPTY_OK } from '@/test-support/typed-fake-api';
import { columnTexts } from '@/test-support/table';
import { ADMINS, adminsTable, openAdmins } from '@/test-support/screens/admins';

describe('admins screen: table', { timeout: 30_000 }, () => {
  it('lists Name, Auth type, Username and Last login, sorted by name, with the disabled marker', async () => {
    openAdmins();
    const table = await adminsTable();
    const headers = within(table)
      .getAllByRole('columnheader')
      .map((header) => header.textContent);
    expect(headers).toEqual(['Name', 'Auth type', 'Username', 'Last login', 'Actions']);
    expect(columnTexts(table, 0)).toEqual(['Ada LovelaceLogin disabled', 'Grace HopperYou', 'Linus']);
    expect(columnTexts(table, 1)).toEqual(['LDAP', 'Local', 'SAML']);
    expect(columnTexts(table, 2)).toEqual(['ada', 'grace', 'linus']);
    expect(columnTexts(table, 3)).toEqual(['Never', '2 hours ago', '5 hours ago']);
  });

  it('sorts by username and reverses on the second click', async () => {
    const { user } = openAdmins();
    const table = await adminsTable();
    await user.click(within(table).getByRole('button', { name: 'Username' }));
    expect(columnTexts(table, 2)).toEqual(['ada', 'grace', 'linus']);
    await user.click(within(table).getByRole('button', { name: 'Username' }));
    expect(columnTexts(table, 2)).toEqual(['linus', 'grace', 'ada']);
    expect(within(table).getByRole('columnheader', { name: 'Username' })).toHaveAttribute('aria-sort', 'descending');
  });

  it('sorts by last login with never-signed-in admins last', async () => {
    const { user } = openAdmins();
    const table = await adminsTable();
    await user.click(within(table).getByRole('button', { name: 'Last login' }));
    expect(columnTexts(table, 2)).toEqual(['linus', 'grace', 'ada']);
  });

  it('keeps the rows matching the search', async () => {
    const { user } = openAdmins();
    const table = await adminsTable();
    await user.type(screen.getByRole('textbox', { name: 'Search' }), 'SAML');
    expect(columnTexts(table, 2)).toEqual(['linus']);
  });

  it('shows a failed load as an error', async () => {
    // A 4xx, which the query client does not retry.
    openAdmins({ 'GET /api/admin/admins': apiError(403, 'err.unauthorised') });
    expect(await screen.findByText('Unauthorised', {}, { timeout: 5000 })).toBeVisible();
    expect(screen.queryByRole('table', { name: 'Admins' })).not.toBeInTheDocument();
  });
});

describe('admins screen: own account', { timeout: 30_000 }, () => {
  it('explains why you cannot reset your own 2FA or delete yourself, and does nothing on a click', async () => {
    const { api, user } = openAdmins();
    await adminsTable();
    const reset = screen.getByRole('button', { name: 'Reset 2FA of Grace Hopper' });
    const remove = screen.getByRole('button', { name: 'Delete Grace Hopper' });
    expect(reset).toHaveAttribute('aria-disabled', 'true');
    expect(reset).toHaveAccessibleDescription('You cannot reset your own 2FA token');
    expect(remove).toHaveAccessibleDescription('You cannot delete or disable your own account');
    await user.click(reset);
    await user.click(remove);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(api.requests.filter((request) => request.method === 'DELETE')).toHaveLength(0);
  });

  it('offers no 2FA reset for an admin without 2FA', async () => {
    openAdmins();
    await adminsTable();
    expect(screen.getByRole('button', { name: 'Reset 2FA of Linus' })).toHaveAccessibleDescription(
      'Two-factor authentication is off for this admin',
    );
    expect(screen.getByRole('button', { name: 'Reset 2FA of Ada Lovelace' })).not.toHaveAttribute('aria-disabled');
  });
});

describe('admins screen: passkeys', { timeout: 30_000 }, () => {
  it('removes an admin’s passkeys after confirmation and says so', async () => {
    const { api, user } = openAdmins({ 'DELETE /api/admin/admins/:id/passkeys': EMPTY_OK });
    await adminsTable();
    await user.click(screen.getByRole('button', { name: 'Remove passkeys of Ada Lovelace' }));
    const dialog = await screen.findByRole('dialog', { name: 'Remove passkeys' });
    expect(dialog).toHaveTextContent('Remove every passkey of Ada Lovelace?');
    await user.click(within(dialog).getByRole('button', { name: 'Remove passkeys' }));
    expect(await screen.findByText('Passkeys removed')).toBeVisible();
    expect(api.calls('DELETE /api/admin/admins/:id/passkeys')[0]?.params).toEqual({ id: 'admin-ada' });
  });

  it('explains why one’s own passkeys and a SAML admin’s are not removed here', async () => {
    const { api, user } = openAdmins();
    await adminsTable();
    const own = screen.getByRole('button', { name: 'Remove passkeys of Grace Hopper' });
    expect(own).toHaveAccessibleDescription('Manage your own passkeys with the Passkeys button at the top');
    expect(screen.getByRole('button', { name: 'Remove passkeys of Linus' })).toHaveAccessibleDescription(
      'Passkeys are not available for this account',
    );
    await user.click(own);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(api.requests.filter((request) => request.method === 'DELETE')).toHaveLength(0);
  });
});

describe('admins screen: actions', { timeout: 30_000 }, () => {
  it('resets 2FA after confirmation, says so and refreshes the list', async () => {
    const { api, user } = openAdmins({ 'DELETE /api/admin/admins/:id/totpToken': EMPTY_OK });
    await adminsTable();
    await user.click(screen.getByRole('button', { name: 'Reset 2FA of Ada Lovelace' }));
    const dialog = await screen.findByRole('dialog', { name: 'Reset 2FA' });
    expect(dialog).toHaveTextContent('Ada Lovelace will have to set up two-factor authentication again');
    await user.click(within(dialog).getByRole('button', { name: 'Reset 2FA' }));
    expect(await screen.findByText('2FA reset')).toBeVisible();
    expect(api.calls('DELETE /api/admin/admins/:id/totpToken')[0]?.params).toEqual({ id: 'admin-ada' });
    await waitFor(() => expect(api.calls('GET /api/admin/admins')).toHaveLength(2));
  });

  it('deletes nothing on Cancel', async () => {
    const { api, user } = openAdmins({ 'DELETE /api/admin/admins/:id': EMPTY_OK });
    await adminsTable();
    await user.click(screen.getByRole('button', { name: 'Delete Linus' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete admin' });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(api.calls('DELETE /api/admin/admins/:id')).toHaveLength(0);
  });

  it('asks before deleting, deletes, says so and refreshes', async () => {
    const { api, user } = openAdmins({ 'DELETE /api/admin/admins/:id': EMPTY_OK });
    await adminsTable();
    await user.click(screen.getByRole('button', { name: 'Delete Linus' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete admin' });
    expect(dialog).toHaveTextContent('Delete admin "Linus" (linus)?');
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('Admin deleted')).toBeVisible();
    expect(api.calls('DELETE /api/admin/admins/:id')[0]?.params).toEqual({ id: 'admin-linus' });
    await waitFor(() => expect(api.calls('GET /api/admin/admins')).toHaveLength(2));
  });

  it('shows a refused delete in the Error dialog and refreshes the list', async () => {
    const { api, user } = openAdmins({ 'DELETE /api/admin/admins/:id': apiError(400, 'err.cannotDeleteSelf') });
    await adminsTable();
    await user.click(screen.getByRole('button', { name: 'Delete Linus' }));
    await user.click(
      within(await screen.findByRole('dialog', { name: 'Delete admin' })).getByRole('button', { name: 'Delete' }),
    );
    const error = await screen.findByRole('dialog', { name: 'Error' });
    expect(within(error).getByRole('alert')).toHaveTextContent('You cannot delete or disable your own account');
    expect(screen.queryByText('Admin deleted')).not.toBeInTheDocument();
    await waitFor(() => expect(api.calls('GET /api/admin/admins')).toHaveLength(2));
    await user.click(within(error).getAllByRole('button', { name: 'Close' }).at(-1)!);
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Error' })).not.toBeInTheDocument());
  });

  it('invalidates all admin sessions after confirmation and says how many ended', async () => {
    const { api, user } = openAdmins({ 'DELETE /api/admin/adminsessions': data(SessionsEndedResponse, { Ended: 3 }) });
    await adminsTable();
    await user.click(screen.getByRole('button', { name: 'Invalidate all admin sessions' }));
    const dialog = await screen.findByRole('dialog', { name: 'Invalidate all admin sessions' });
    expect(dialog).toHaveTextContent('End every admin session except yours?');
    await user.click(within(dialog).getByRole('button', { name: 'Invalidate sessions' }));
    expect(await screen.findByText('Admin sessions ended: 3')).toBeVisible();
    expect(api.calls('DELETE /api/admin/adminsessions')).toHaveLength(1);
  });

  it('shows a refused invalidation in the Error dialog', async () => {
    const { user } = openAdmins({ 'DELETE /api/admin/adminsessions': apiError(500, 'err.internalServerError') });
    await adminsTable();
    await user.click(screen.getByRole('button', { name: 'Invalidate all admin sessions' }));
    const dialog = await screen.findByRole('dialog', { name: 'Invalidate all admin sessions' });
    await user.click(within(dialog).getByRole('button', { name: 'Invalidate sessions' }));
    const error = await screen.findByRole('dialog', { name: 'Error' });
    expect(within(error).getByRole('alert')).toHaveTextContent('Internal server error');
  });

  it('lists every admin the server returned', async () => {
    openAdmins();
    expect(columnTexts(await adminsTable(), 2)).toHaveLength(ADMINS.length);
  });
});
