import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { AgentListResponse, KnocCreatedResponse, KnocResponse } from '@postern/protocol';
import i18n from '@/i18n/i18n';
import { knocRecord } from '@/test-support/fixtures';
import { agentRecord, nftablesCapabilities } from '@/test-support/records/agents';
import { backendRecord } from '@/test-support/records/backends';
import { pick } from '@/test-support/screens/knoc-wizard';
import { columnTexts } from '@/test-support/table';
import { data, EMPTY_OK } from '@/test-support/typed-fake-api';
import { aclsTable, BACKENDS, openAcls } from '@/test-support/screens/acls';

const created = data(KnocCreatedResponse, { ID: 'k-new' });

describe('ACLs screen: table', { timeout: 30_000 }, () => {
  it('lists description, details and last modified, sorted by description, without hidden knocs', async () => {
    openAcls();
    const table = await aclsTable();
    const headers = within(table)
      .getAllByRole('columnheader')
      .map((header) => header.textContent);
    expect(headers).toEqual(['Description', 'Details', 'Last modified', 'Actions']);
    expect(columnTexts(table, 0)).toEqual(['Admin panel', 'Billing database']);
    expect(columnTexts(table, 1)).toEqual(['HAProxy ACL 7', 'postern-v4']);
  });

  it('sorts by description in reverse on a click, and searches details', async () => {
    const { user } = openAcls();
    const table = await aclsTable();
    await user.click(within(table).getByRole('button', { name: 'Description' }));
    expect(columnTexts(table, 0)).toEqual(['Billing database', 'Admin panel']);
    await user.type(screen.getByRole('textbox', { name: 'Search' }), 'HAPROXY');
    expect(columnTexts(table, 0)).toEqual(['Admin panel']);
  });

  it('speaks German', async () => {
    await i18n.changeLanguage('de');
    openAcls();
    const table = await aclsTable();
    expect(within(table).getByRole('button', { name: 'Beschreibung' })).toBeVisible();
    expect(screen.getByRole('button', { name: 'ACL anlegen' })).toBeVisible();
    expect(columnTexts(table, 1)).toContain('HAProxy-ACL 7');
  });
});

describe('ACLs screen: create, edit, delete', { timeout: 30_000 }, () => {
  it('says to create a backend first when there is none', async () => {
    const { user } = openAcls({}, { backends: [] });
    await aclsTable();
    await waitFor(() => expect(screen.getByRole('button', { name: 'Create ACL' })).toBeEnabled());
    await user.click(screen.getByRole('button', { name: 'Create ACL' }));
    const dialog = await screen.findByRole('dialog', { name: 'Error' });
    expect(dialog).toHaveTextContent('Create a backend before creating an ACL');
    expect(screen.queryByRole('dialog', { name: 'Create ACL' })).not.toBeInTheDocument();
  });

  it('needs a backend, then its fields, and sends the body with the grant in seconds', async () => {
    const { api, user } = openAcls({ 'POST /api/admin/acls': created });
    await aclsTable();
    await user.click(screen.getByRole('button', { name: 'Create ACL' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create ACL' });
    await user.type(within(dialog).getByRole('textbox', { name: /^Description/ }), 'Wiki');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(dialog).findByText('No backend selected')).toBeVisible();
    await user.selectOptions(within(dialog).getByRole('combobox', { name: /^Backend/ }), 'b-lb');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(dialog).findByText('The ACL ID is required')).toBeVisible();
    await user.type(within(dialog).getByRole('textbox', { name: /^HAProxy ACL ID/ }), '9');
    await user.type(within(dialog).getByRole('textbox', { name: /^Maximum grant duration/ }), '30');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('ACL Wiki created')).toBeVisible();
    expect(api.calls('POST /api/admin/acls')[0]?.body).toEqual({
      Description: 'Wiki',
      BackendID: 'b-lb',
      Config: { haproxy: { ID: '9' } },
      URL: '',
      Category: '',
      Icon: '',
      ClickToGrant: true,
      HideFromUsers: false,
      MaximumGrantDuration: 1800,
    });
    await waitFor(() => expect(api.calls('GET /api/admin/acls')).toHaveLength(2));
  });

  it('offers an nftables knoc the sets its agent reported in the backend’s table', async () => {
    const nftBackend = backendRecord({
      ID: 'b-nft',
      Name: 'Jump host',
      Type: 'nftables',
      Config: { nftables: { Family: 'ip', Table: 'filter' } },
    });
    const { api, user } = openAcls(
      {
        'POST /api/admin/acls': created,
        'GET /api/admin/agents': data(AgentListResponse, [agentRecord({ Capabilities: nftablesCapabilities() })]),
      },
      { backends: [...BACKENDS, nftBackend] },
    );
    await aclsTable();
    await user.click(screen.getByRole('button', { name: 'Create ACL' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create ACL' });
    await user.type(within(dialog).getByRole('textbox', { name: /^Description/ }), 'Jump');
    await user.selectOptions(within(dialog).getByRole('combobox', { name: /^Backend/ }), 'b-nft');
    await pick(user, 'IPv4 set', 'office4');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() =>
      expect(api.calls('POST /api/admin/acls')[0]?.body).toMatchObject({
        BackendID: 'b-nft',
        Config: { nftables: { V4SetName: 'office4', V6SetName: '' } },
      }),
    );
  });

  it('edits a knoc, keeping what the dialog does not show', async () => {
    const { api, user } = openAcls({ 'PUT /api/admin/acls/:id': data(KnocResponse, knocRecord()) });
    await aclsTable();
    await user.click(screen.getByRole('button', { name: 'Edit Admin panel' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit ACL Admin panel' });
    expect(within(dialog).getByRole('textbox', { name: /^Maximum grant duration/ })).toHaveValue('60');
    await user.click(within(dialog).getByRole('checkbox', { name: 'Hide from users' }));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('ACL Admin panel updated')).toBeVisible();
    expect(api.calls('PUT /api/admin/acls/:id')[0]?.body).toMatchObject({
      ID: 'k-admin',
      HideFromUsers: true,
      MaximumGrantDuration: 3600,
      Config: { haproxy: { ID: '7' } },
      GrantType: { Type: 'userIp', Ips: [] },
    });
  });

  it('asks before deleting, deletes and says so', async () => {
    const { api, user } = openAcls({ 'DELETE /api/admin/acls/:id': EMPTY_OK });
    await aclsTable();
    await user.click(screen.getByRole('button', { name: 'Delete Admin panel' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete ACL' });
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('ACL deleted')).toBeVisible();
    expect(api.calls('DELETE /api/admin/acls/:id')[0]?.params).toEqual({ id: 'k-admin' });
  });
});
