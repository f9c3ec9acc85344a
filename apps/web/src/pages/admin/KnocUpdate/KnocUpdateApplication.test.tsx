import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { KnocResponse, RECORDED, type KnocRecord } from '@postern/protocol';
import {
  allowlistByAddressKnoc,
  fortiosKnoc,
  PASSIVE_PLUS_CHILD,
  PASSIVE_PLUS_PARENT,
} from '@/test-support/records/knoc-wizard';
import { currentPath } from '@/test-support/render-app';
import { data } from '@/test-support/typed-fake-api';
import { EDGE, openWizard } from '@/test-support/screens/knoc-wizard';

const FORTIOS = fortiosKnoc({ AgentID: EDGE.ID });
const STORED_FORTIOS = { Url: 'https://fw.example.net', Insecure: false, Prefix: 'kk_', VDOM: 'root' };

/** The update screen of `knoc`, the fake API answering each knoc by its id. */
function openUpdate(knoc: KnocRecord, others: readonly KnocRecord[] = []) {
  const byId = new Map([knoc, ...others].map((record) => [record.ID, record]));
  return openWizard(`/admin/knocs/${knoc.ID}/update`, {
    'GET /api/admin/knocs/:id': ({ params }) => data(KnocResponse, byId.get(params.id ?? '') ?? knoc),
    'PUT /api/admin/knocs/:id': data(KnocResponse, knoc),
  });
}

const putBody = (api: ReturnType<typeof openUpdate>['api']) => api.calls('PUT /api/admin/knocs/:id')[0]?.body;

/** Moves the firewall to another URL and presses Save: the credential dialog, once it opens. */
async function saveWithAnotherUrl(user: ReturnType<typeof openUpdate>['user']) {
  const url = await screen.findByRole('textbox', { name: /^URL/ }, { timeout: 5000 });
  await user.clear(url);
  await user.type(url, 'https://fw2.example.net');
  await user.click(screen.getByRole('button', { name: 'Save' }));
  return screen.findByRole('dialog', { name: 'Re-enter credentials' });
}

describe('update screen of application knocs', { timeout: 30_000 }, () => {
  it('shows a stored secret as RECORDED, not required, and sends it back as RECORDED', async () => {
    const { api, user } = openUpdate(FORTIOS);
    expect(await screen.findByRole('heading', { name: 'Update Partner portal' }, { timeout: 5000 })).toBeVisible();
    const token = await screen.findByLabelText(/^API token/);
    expect(token).toHaveValue('');
    expect(token).toHaveAttribute('placeholder', RECORDED);
    expect(token).not.toBeRequired();
    await user.click(screen.getByRole('button', { name: 'Save' }));

    await waitFor(() => expect(currentPath()).toBe('/admin/knocs?didUpdate=true'));
    expect(putBody(api)).toMatchObject({
      Backend: { ID: 'b-fw', Name: 'Forti edge', Config: { fortios: { ...STORED_FORTIOS, Bearer: RECORDED } } },
      Knoc: { ID: 'k-fw', Description: 'Partner portal', Config: { fortios: { Name: 'postern_portal' } } },
      UserIDs: ['u-ada'],
    });
  });

  it('asks for the token again when the URL changed, then saves with the new one', async () => {
    const { api, user } = openUpdate(FORTIOS);
    const dialog = await saveWithAnotherUrl(user);
    expect(api.calls('PUT /api/admin/knocs/:id')).toHaveLength(0);
    await user.type(within(dialog).getByLabelText(/^API token/), 'fresh-token');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));

    await waitFor(() => expect(currentPath()).toBe('/admin/knocs?didUpdate=true'));
    expect(putBody(api)).toMatchObject({
      Backend: {
        Config: { fortios: { ...STORED_FORTIOS, Url: 'https://fw2.example.net', Bearer: 'fresh-token' } },
      },
    });
  });

  it('keeps the screen as it was when the credential dialog is cancelled', async () => {
    const { api, user } = openUpdate(FORTIOS);
    const dialog = await saveWithAnotherUrl(user);
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));

    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(screen.getByRole('textbox', { name: /^URL/ })).toHaveValue('https://fw2.example.net');
    expect(api.calls('PUT /api/admin/knocs/:id')).toHaveLength(0);
    expect(currentPath()).toBe('/admin/knocs/k-fw/update');
  });

  it('shows the fixed kind and vendor, and the vendor’s connection and rule under their headings', async () => {
    openUpdate(FORTIOS);
    expect(await screen.findByRole('textbox', { name: /^Application type/ }, { timeout: 5000 })).toHaveValue('Active');
    expect(screen.getByRole('textbox', { name: /^Vendor/ })).toHaveValue('Fortinet');
    const connection = within(screen.getByRole('group', { name: 'Fortinet connection' }));
    expect(connection.getByRole('textbox', { name: /^URL/ })).toBeVisible();
    const rule = within(screen.getByRole('group', { name: 'Fortinet rule' }));
    expect(rule.getByRole('textbox', { name: /^Address group name/ })).toBeVisible();
  });

  it('edits the address ranges of an allowlist knoc, keeping its token and key', async () => {
    const { api, user } = openUpdate(allowlistByAddressKnoc());
    expect(await screen.findByRole('heading', { name: 'Update Partner list' }, { timeout: 5000 })).toBeVisible();
    expect(await screen.findByRole('checkbox', { name: /Allow access by IP address/ })).toBeChecked();
    await user.click(screen.getByRole('button', { name: 'Remove address range 1' }));
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('At least one IP range must be present')).toBeVisible();
    expect(api.calls('PUT /api/admin/knocs/:id')).toHaveLength(0);

    await user.click(screen.getByRole('button', { name: 'Add address range' }));
    await user.type(screen.getByRole('textbox', { name: 'Address range 1' }), '198.51.100.0/24');
    await user.click(screen.getByRole('button', { name: 'Save' }));

    await waitFor(() => expect(currentPath()).toBe('/admin/knocs?didUpdate=true'));
    expect(putBody(api)).toMatchObject({
      Backend: { ID: 'b-list', Config: { allowlist: {} } },
      Knoc: {
        ID: 'k-list',
        Config: {
          allowlist: { Token: 'tok-123', ApiKeyId: '', AllowAccessByIp: true, AllowedIpAddresses: ['198.51.100.0/24'] },
        },
      },
    });
  });

  it("edits a passive+ firewall knoc under its parent's name, with the parent's members", async () => {
    const { api, user } = openUpdate(PASSIVE_PLUS_CHILD, [PASSIVE_PLUS_PARENT]);
    expect(await screen.findByRole('heading', { name: 'Update Partner firewall' }, { timeout: 5000 })).toBeVisible();
    expect(await screen.findByRole('textbox', { name: /^External dynamic list name/ })).toHaveValue('postern-edl');
    await user.click(screen.getByRole('button', { name: 'Save' }));

    await waitFor(() => expect(currentPath()).toBe('/admin/knocs?didUpdate=true'));
    expect(api.calls('PUT /api/admin/knocs/:id')[0]?.params).toEqual({ id: 'k-child' });
    expect(putBody(api)).toMatchObject({
      Backend: { ID: 'b-pan', Config: { panos: { Hostname: 'pan.example.net', ApiKey: RECORDED } } },
      Knoc: { ID: 'k-child', ClickToGrant: false, Config: { panos: { EDLName: 'postern-edl' } } },
      UserIDs: ['u-ada'],
      GroupIDs: ['g-ops'],
    });
  });
});
