import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import {
  ErrorCodes,
  GroupListResponse,
  PasskeyListResponse,
  SessionsEndedResponse,
  UserAclListResponse,
  UserSessionListResponse,
} from '@postern/protocol';
import { findMenuItem, getMenuItem, menuItemTexts } from '@/test-support/menu';
import { apiError, data, EMPTY_OK } from '@/test-support/typed-fake-api';
import { findUsersTable, openUsersPage, userRoutes } from '@/test-support/screens/users';
import { listedUser } from '@/test-support/records/users';
import { passkeyRecord } from '@/test-support/records/passkeys';

// Whole-app tests with dialogs take a few seconds each.
vi.setConfig({ testTimeout: 20_000 });

type Page = ReturnType<typeof openUsersPage>;

/** Opens a row's actions menu; resolves once its first item (View) is there. */
async function openMenu({ user }: Page, name: string) {
  const table = await findUsersTable();
  const button = within(table).getByRole('button', { name: `Actions for ${name}` });
  await user.click(button);
  expect(button).toHaveAttribute('aria-expanded', 'true');
  await findMenuItem('View', { timeout: 8_000 });
}

async function choose(page: Page, name: string, item: string) {
  await openMenu(page, name);
  await page.user.click(getMenuItem(item));
}

const confirmIn = async (page: Page, title: string, button: string) => {
  const dialog = await screen.findByRole('dialog', { name: title });
  await page.user.click(within(dialog).getByRole('button', { name: button }));
};

describe('row actions', () => {
  it.each([
    ['a local user', 'Ada Lovelace', ['View', 'Edit', 'Remove passkeys', 'Delete']],
    ['a SAML user (not editable, passkeys at the IdP)', 'Sam', ['View', 'Delete']],
    ['a user with TOTP on (reset 2FA)', 'Tom', ['View', 'Edit', 'Reset 2FA', 'Remove passkeys', 'Delete']],
  ])('offers the right actions for %s', async (_case, name, expected) => {
    const page = openUsersPage(
      userRoutes([
        listedUser(),
        listedUser({ ID: 'u-sam', Name: 'Sam', AuthType: 'SAML', TOTPEnabled: false }),
        listedUser({ ID: 'u-tom', Name: 'Tom', TOTPEnabled: true }),
      ]),
    );
    await openMenu(page, name);
    expect(menuItemTexts()).toEqual(expected);
  });
});

describe('delete user', () => {
  it('deletes only after confirmation, says so and refreshes the list', async () => {
    const page = openUsersPage({ 'DELETE /api/admin/users/:id': EMPTY_OK });
    await choose(page, 'Ada Lovelace', 'Delete');
    const dialog = await screen.findByRole('dialog', { name: 'Delete user' });
    expect(dialog).toHaveTextContent('Delete the user "Ada Lovelace"?');
    expect(page.api.calls('DELETE /api/admin/users/:id')).toHaveLength(0);
    await page.user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('User deleted')).toBeVisible();
    expect(page.api.calls('DELETE /api/admin/users/:id')[0]?.params.id).toBe('u-ada');
    await waitFor(() => expect(page.api.calls('GET /api/admin/users')).toHaveLength(2));
  });

  it('does nothing on Cancel', async () => {
    const page = openUsersPage({ 'DELETE /api/admin/users/:id': EMPTY_OK });
    await choose(page, 'Ada Lovelace', 'Delete');
    await confirmIn(page, 'Delete user', 'Cancel');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(page.api.calls('DELETE /api/admin/users/:id')).toHaveLength(0);
  });

  it('shows a refused delete in the Error dialog and still refreshes the list', async () => {
    const page = openUsersPage({ 'DELETE /api/admin/users/:id': apiError(404, ErrorCodes.notFound, 'user') });
    await choose(page, 'Ada Lovelace', 'Delete');
    await confirmIn(page, 'Delete user', 'Delete');
    const error = await screen.findByRole('dialog', { name: 'Error' });
    expect(within(error).getByRole('alert')).not.toBeEmptyDOMElement();
    expect(screen.queryByText('User deleted')).not.toBeInTheDocument();
    await waitFor(() => expect(page.api.calls('GET /api/admin/users')).toHaveLength(2));
  });
});

describe('reset 2FA', () => {
  it('resets after confirmation and says so', async () => {
    const page = openUsersPage({ 'DELETE /api/admin/users/:id/totpToken': EMPTY_OK });
    await choose(page, 'grace Hopper', 'Reset 2FA');
    await confirmIn(page, 'Reset 2FA', 'Reset 2FA');
    expect(await screen.findByText('2FA reset')).toBeVisible();
    expect(page.api.calls('DELETE /api/admin/users/:id/totpToken')[0]?.params.id).toBe('u-grace');
  });

  it('shows a refusal in the Error dialog', async () => {
    const page = openUsersPage({
      'DELETE /api/admin/users/:id/totpToken': apiError(400, ErrorCodes.totpNotEnabled),
    });
    await choose(page, 'grace Hopper', 'Reset 2FA');
    await confirmIn(page, 'Reset 2FA', 'Reset 2FA');
    expect(await screen.findByRole('dialog', { name: 'Error' })).toHaveTextContent(
      'Two-factor authentication is not enabled for this account',
    );
  });
});

describe('remove passkeys', () => {
  it('removes every passkey of the user only after confirmation, and says so', async () => {
    const page = openUsersPage({ 'DELETE /api/admin/users/:id/passkeys': EMPTY_OK });
    await choose(page, 'Ada Lovelace', 'Remove passkeys');
    const dialog = await screen.findByRole('dialog', { name: 'Remove passkeys' });
    expect(dialog).toHaveTextContent('Remove every passkey of Ada Lovelace?');
    expect(page.api.calls('DELETE /api/admin/users/:id/passkeys')).toHaveLength(0);
    await page.user.click(within(dialog).getByRole('button', { name: 'Remove passkeys' }));
    expect(await screen.findByText('Passkeys removed')).toBeVisible();
    expect(page.api.calls('DELETE /api/admin/users/:id/passkeys')[0]?.params.id).toBe('u-ada');
  });

  it('shows how many passkeys a user holds in the details', async () => {
    const page = openUsersPage({
      'GET /api/admin/users/:id/passkeys': data(PasskeyListResponse, [passkeyRecord(), passkeyRecord({ ID: 'pk-2' })]),
    });
    await choose(page, 'Ada Lovelace', 'View');
    const dialog = await screen.findByRole('dialog');
    expect(await within(dialog).findByText('2 passkeys')).toBeVisible();
    expect(page.api.calls('GET /api/admin/users/:id/passkeys')[0]?.params.id).toBe('u-ada');
  });
});

describe('invalidate all sessions', () => {
  it('ends every user session after confirmation and says how many', async () => {
    const page = openUsersPage({ 'DELETE /api/admin/sessions': data(SessionsEndedResponse, { Ended: 7 }) });
    await findUsersTable();
    await page.user.click(screen.getByRole('button', { name: 'Invalidate all sessions' }));
    await confirmIn(page, 'Invalidate all sessions', 'Invalidate all');
    expect(await screen.findByText('All user sessions invalidated (sessions ended: 7)')).toBeVisible();
    expect(page.api.calls('DELETE /api/admin/sessions')).toHaveLength(1);
  });

  it('shows a failure in the Error dialog', async () => {
    const page = openUsersPage({ 'DELETE /api/admin/sessions': apiError(500, ErrorCodes.internalServerError) });
    await findUsersTable();
    await page.user.click(screen.getByRole('button', { name: 'Invalidate all sessions' }));
    await confirmIn(page, 'Invalidate all sessions', 'Invalidate all');
    expect(await screen.findByRole('dialog', { name: 'Error' })).toHaveTextContent('Internal server error');
  });
});

describe('view user', () => {
  const now = Date.now();
  const detailRoutes = {
    'GET /api/admin/users/:id/groups': data(GroupListResponse, [
      { ID: 'g-1', Name: 'Engineers', Description: 'Build things', Type: 'local', ACLIDs: [], UserIDs: ['u-ada'] },
    ]),
    'GET /api/admin/users/:id/acls': data(UserAclListResponse, [{ ID: 'acl-1', Description: 'Billing database' }]),
    'GET /api/admin/users/:id/sessions': data(UserSessionListResponse, [
      {
        ID: 's-1',
        Created: new Date(now - 3_600_000).toISOString(),
        Ends: new Date(now + 3_600_000).toISOString(),
        IPAddress: '192.0.2.7',
        KioskMode: true,
      },
    ]),
  } as const;

  async function openView(page: Page) {
    const table = await findUsersTable();
    await page.user.click(within(table).getByRole('button', { name: 'Ada Lovelace' }));
    return screen.findByRole('dialog', { name: 'User "Ada Lovelace"' });
  }

  it('shows details, groups, ACLs and sessions, each from its call', async () => {
    const page = openUsersPage(detailRoutes);
    const dialog = await openView(page);
    expect(dialog).toHaveTextContent('Analytical Engines');
    expect(dialog).toHaveTextContent('480 min');
    await page.user.click(within(dialog).getByRole('tab', { name: 'Groups' }));
    const groups = await within(dialog).findByRole('table', { name: 'Groups of the user' });
    expect(groups).toHaveTextContent('Engineers');
    await page.user.click(within(dialog).getByRole('tab', { name: 'ACLs' }));
    expect(await within(dialog).findByRole('list', { name: 'ACLs of the user' })).toHaveTextContent('Billing database');
    await page.user.click(within(dialog).getByRole('tab', { name: 'Sessions' }));
    const sessions = await within(dialog).findByRole('table', { name: 'Sessions of the user' });
    expect(sessions).toHaveTextContent('192.0.2.7');
    expect(sessions).toHaveTextContent('an hour ago');
    expect(sessions).toHaveTextContent('Public computer');
    expect(page.api.calls('GET /api/admin/users/:id/acls')[0]?.params.id).toBe('u-ada');
  });

  it('ends one session after confirmation and refreshes the sessions', async () => {
    const page = openUsersPage({ ...detailRoutes, 'DELETE /api/admin/sessions/:id': EMPTY_OK });
    const dialog = await openView(page);
    await page.user.click(within(dialog).getByRole('tab', { name: 'Sessions' }));
    await page.user.click(await within(dialog).findByRole('button', { name: 'End session from 192.0.2.7' }));
    await confirmIn(page, 'End session', 'End session');
    expect(await screen.findByText('Session ended')).toBeVisible();
    expect(page.api.calls('DELETE /api/admin/sessions/:id')[0]?.params.id).toBe('s-1');
    await waitFor(() => expect(page.api.calls('GET /api/admin/users/:id/sessions')).toHaveLength(2));
  });

  it('shows a refused session end in the Error dialog', async () => {
    const page = openUsersPage({
      ...detailRoutes,
      'DELETE /api/admin/sessions/:id': apiError(500, ErrorCodes.internalServerError),
    });
    const dialog = await openView(page);
    await page.user.click(within(dialog).getByRole('tab', { name: 'Sessions' }));
    await page.user.click(await within(dialog).findByRole('button', { name: 'End session from 192.0.2.7' }));
    await confirmIn(page, 'End session', 'End session');
    expect(await screen.findByRole('dialog', { name: 'Error' })).toHaveTextContent('Internal server error');
  });
});
