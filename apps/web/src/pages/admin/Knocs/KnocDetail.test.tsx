import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import {
  AdminStatusResponse,
  AgentListResponse,
  GroupListResponse,
  KnocResponse,
  UserListResponse,
} from '@postern/protocol';
import { allowlistKnoc, nftablesKnoc } from '@/test-support/records/knocs';
import { stubClipboard } from '@/test-support/clipboard';
import { adminStatus, knocRecord, licensingSummary } from '@/test-support/fixtures';
import { findMenuItem } from '@/test-support/menu';
import { currentPath } from '@/test-support/render-app';
import { data } from '@/test-support/typed-fake-api';
import { KNOCS, knocsTable, openKnocs } from '@/test-support/screens/knocs';

const ALLOWLIST_URL = `${window.location.origin}/api/v1/allowlists/k-allow/tok123.txt`;

/** Opens the knocs screen and the detail dialog of the row named `name`. */
async function openDetail(name: string, ...args: Parameters<typeof openKnocs>) {
  const opened = openKnocs(...args);
  const table = await knocsTable();
  const row = within(table).getByRole('button', { name }).closest('tr');
  if (row === null) throw new Error(`no row ${name}`);
  await opened.user.click(within(row).getAllByRole('cell')[2] ?? row);
  const dialog = await screen.findByRole('dialog', { name });
  return { ...opened, dialog };
}

describe('knocs screen: detail dialog', { timeout: 30_000 }, () => {
  it("opens on a row click with the knoc's settings", async () => {
    const { dialog } = await openDetail('Billing database');
    const settings = within(dialog).getByRole('table', { name: 'Settings' });
    expect(settings).toHaveTextContent('TypeLinux ipset');
    expect(settings).toHaveTextContent('Backendedge ipset');
    expect(settings).toHaveTextContent('Users3');
    expect(settings).toHaveTextContent('Maximum grant durationNone');
  });

  it('shows how to request the allowlist with the API key, and copies the request', async () => {
    const { dialog, user } = await openDetail('Office allowlist');
    const writeText = stubClipboard();
    expect(dialog).toHaveTextContent(ALLOWLIST_URL);
    expect(dialog).toHaveTextContent(`curl -u 'apiuser:<API key>' ${ALLOWLIST_URL}`);
    await user.click(within(dialog).getByRole('button', { name: 'Copy: Request' }));
    expect(writeText).toHaveBeenCalledWith(`curl -u 'apiuser:<API key>' ${ALLOWLIST_URL}`);
  });

  it('lists each ipset of a Linux knoc, each with a copy button', async () => {
    const { dialog } = await openDetail('Billing database');
    expect(dialog).toHaveTextContent('ipset list billing4');
    expect(dialog).toHaveTextContent('ipset list billing6');
    expect(within(dialog).getByRole('button', { name: 'Copy: List billing6' })).toBeVisible();
  });

  it('lists each set of an nftables knoc with the nft command of its table, and shows the type and details', async () => {
    const { dialog } = await openDetail('Jump host', {}, [...KNOCS, nftablesKnoc()]);
    expect(await knocsTable()).toHaveTextContent('nftables inet postern: allow4, allow6');
    const settings = within(dialog).getByRole('table', { name: 'Settings' });
    expect(settings).toHaveTextContent('TypeLinux nftables');
    expect(dialog).toHaveTextContent('list the set in table postern (inet)');
    expect(dialog).toHaveTextContent('nft list set inet postern allow4');
    expect(dialog).toHaveTextContent('nft list set inet postern allow6');
    expect(within(dialog).getByRole('button', { name: 'Copy: List allow6' })).toBeVisible();
  });

  it("names the script's program and variables", async () => {
    const { dialog } = await openDetail('Router');
    expect(dialog).toHaveTextContent('Agent edge runs mikrotik.sh from its scripts directory');
    expect(dialog).toHaveTextContent('knoc_action, knoc_aclname, knoc_username, knoc_cidr, knoc_ipaddr, TOKEN');
    expect(dialog).toHaveTextContent('mikrotik.sh add router_acl <address>');
  });

  it('edits a knoc on its own update screen', async () => {
    const router = KNOCS.find((knoc) => knoc.Name === 'Router');
    if (router === undefined) throw new Error('the fixtures have no Router');
    const { dialog, user } = await openDetail('Router', {
      // What the update screen then loads, licensed.
      'GET /api/admin/status': data(AdminStatusResponse, adminStatus({ Licensing: licensingSummary() })),
      'GET /api/admin/knocs/:id': data(KnocResponse, router),
      'GET /api/admin/agents': data(AgentListResponse, []),
      'GET /api/admin/users': data(UserListResponse, []),
      'GET /api/admin/groups': data(GroupListResponse, []),
    });
    await user.click(within(dialog).getByRole('button', { name: 'Actions for Router' }));
    await user.click(await findMenuItem('Edit'));
    await waitFor(() => expect(currentPath()).toBe('/admin/knocs/k-script/update'));
    expect(await screen.findByRole('heading', { level: 1, name: 'Update Router' }, { timeout: 5000 })).toBeVisible();
  });

  it('edits a passive+ knoc through its hidden child, whose firewall instructions it shows', async () => {
    const parent = allowlistKnoc({ Children: ['k-fw'] });
    const child = knocRecord({
      ID: 'k-fw',
      Name: 'Office allowlist',
      HideFromAdmins: true,
      ParentID: 'k-allow',
      BackendType: 'panos',
      AclConfig: { panos: { GroupName: '', EDLName: 'postern-edl', MapUser: false, SerialNumber: '' } },
    });
    const { dialog, user } = await openDetail(
      'Office allowlist',
      {
        'GET /api/admin/knocs/:id': data(KnocResponse, child),
      },
      [parent],
    );
    expect(await within(dialog).findByText(/External Dynamic List postern-edl/)).toBeVisible();
    await user.click(within(dialog).getByRole('button', { name: 'Actions for Office allowlist' }));
    await user.click(await findMenuItem('Edit'));
    await waitFor(() => expect(currentPath()).toBe('/admin/knocs/k-fw/update'));
  });
});
