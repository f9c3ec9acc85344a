import { act, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GrantStatus } from '@postern/protocol';
import i18n from '../../../i18n/i18n';
import { SESSION_KEYS } from '../../../lib/session/session-store';
import { installFakeApi } from '../../../test-support/fake-api';
import { aclEntry, signInUser, userStatus } from '../../../test-support/fixtures';
import { currentPath, renderApp } from '../../../test-support/render-app';

function openHome(status: Parameters<typeof userStatus>[0] = {}, routes = {}) {
  const api = installFakeApi({ 'GET /api/status': { body: { data: userStatus(status) } }, ...routes });
  signInUser();
  return { api, ...renderApp('/home') };
}

const acls = [
  aclEntry({ ACLID: 'db', Description: 'Billing database', URL: 'https://billing.example.com' }),
  aclEntry({
    ACLID: 'wiki',
    Description: 'Team wiki',
    Status: GrantStatus.Granted,
    ExpiredAfter: new Date(Date.now() + 3 * 3600_000 + 60_000).toISOString(),
  }),
  aclEntry({ ACLID: 'hidden', Description: 'Secret backdoor', HideFromUsers: true }),
];

describe('Home', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('greets the user, counts the session down, and shows the current IP with the revalidation note', async () => {
    openHome({ CurrentAddress: '203.0.113.7', ACLs: acls });
    expect(await screen.findByRole('heading', { level: 1, name: 'Hello, Ada Lovelace' })).toBeVisible();
    expect(
      within(screen.getByRole('timer', { name: 'Session expires in' })).getByText(/^\d{2}:\d{2}:\d{2}$/),
    ).toBeVisible();
    expect(await screen.findByText('203.0.113.7')).toBeVisible();
    expect(screen.getByText('Your IP address')).toBeVisible();
    expect(screen.getByText('Leaving this page open validates your IP every 30 seconds')).toBeVisible();
  });

  it('lists the ACLs in a table of description, status and actions, without hidden ones', async () => {
    openHome({ ACLs: acls });
    const table = await screen.findByRole('table');
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((header) => header.textContent),
    ).toEqual(['Description', 'Status', 'Actions']);
    const billing = within(table).getByRole('row', { name: /Billing database/ });
    expect(within(billing).getByText('Ready')).toBeVisible();
    expect(within(billing).getByRole('button', { name: 'Grant Access' })).toBeEnabled();
    const wiki = within(table).getByRole('row', { name: /Team wiki/ });
    expect(within(wiki).getByText('Granted')).toBeVisible();
    expect(within(wiki).getByText('Access for 3 hours')).toBeVisible();
    expect(within(wiki).getByRole('button', { name: 'Revoke Access' })).toBeEnabled();
    expect(screen.queryByText('Secret backdoor')).not.toBeInTheDocument();
  });

  it('grants from the table and shows the new status', async () => {
    let billing = acls[0]!;
    installFakeApi({
      'GET /api/status': () => ({ body: { data: userStatus({ ACLs: [billing] }) } }),
      'POST /api/grant': () => {
        billing = { ...billing, Status: GrantStatus.Pending };
        return { body: { data: billing } };
      },
    });
    signInUser();
    const { user } = renderApp('/home');
    await user.click(await screen.findByRole('button', { name: 'Grant Access' }));
    expect(await screen.findByRole('button', { name: 'Pending' })).toBeDisabled();
    expect(
      within(screen.getByRole('row', { name: /Billing database/ })).getByText('Pending', { selector: 'p' }),
    ).toBeVisible();
  });

  it('asks for the status again every 30 seconds', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { api } = openHome({ ACLs: acls });
    await screen.findByText('Billing database');
    const first = api.calls('GET /api/status').length;
    await act(async () => {
      await vi.advanceTimersByTimeAsync(29_000);
    });
    expect(api.calls('GET /api/status')).toHaveLength(first);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1_500);
    });
    expect(api.calls('GET /api/status')).toHaveLength(first + 1);
  });

  it('covers the page with a dialog that only offers to log out when the system is unlicensed', async () => {
    const { api, user } = openHome({ Licensed: false, UserLicensed: false, ACLs: acls });
    const dialog = await screen.findByRole('dialog', { name: 'Not licensed' });
    expect(dialog).toHaveTextContent('Please contact your administrator.');
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Log out' }));
    await waitFor(() => expect(currentPath()).toBe('/'));
    expect(api.calls('POST /api/logout')).toHaveLength(1);
    expect(window.sessionStorage.getItem(SESSION_KEYS.user)).toBeNull();
  });

  it('tells a user beyond the licence limit that they are not licensed', async () => {
    openHome({ UserLicensed: false, ACLs: acls });
    const dialog = await screen.findByRole('dialog', { name: 'User Not Licensed' });
    // Mounted first, then faded in (Mantine's 200 ms transition): visible once that has run.
    await waitFor(() => expect(dialog).toBeVisible());
  });

  it('is in German for a German browser', async () => {
    await i18n.changeLanguage('de');
    openHome({ ACLs: acls });
    expect(
      await screen.findByText('Solange diese Seite geöffnet ist, wird Ihre IP-Adresse alle 30 Sekunden bestätigt'),
    ).toBeVisible();
    expect(screen.getByRole('columnheader', { name: 'Beschreibung' })).toBeVisible();
    expect(screen.getByRole('button', { name: 'Zugriff gewähren' })).toBeVisible();
    expect(screen.getByRole('button', { name: 'Zugriff widerrufen' })).toBeVisible();
  });
});
