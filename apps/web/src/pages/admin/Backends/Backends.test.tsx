import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { AdminStatusResponse, AgentListResponse, BackendResponse, ErrorCodes } from '@postern/protocol';
import { agentRecord, nftablesCapabilities } from '@/test-support/records/agents';
import i18n from '@/i18n/i18n';
import { backendRecord } from '@/test-support/records/backends';
import { adminStatus } from '@/test-support/fixtures';
import { columnTexts } from '@/test-support/table';
import { apiError, data, EMPTY_OK } from '@/test-support/typed-fake-api';
import { AGENTS, backendsTable, openBackends } from '@/test-support/screens/backends';

/** The dialog's Type select, once the agents it judges the types by have loaded. */
async function enabledType(dialog: HTMLElement) {
  const type = within(dialog).getByRole('combobox', { name: /^Type/ });
  await waitFor(() => expect(type).toBeEnabled());
  return type;
}

const created = data(BackendResponse, backendRecord({ ID: 'b-new', Name: 'Edge LB' }));

describe('backends screen: table', { timeout: 30_000 }, () => {
  it('lists Name, Type, Agent, Last modified and actions, sorted by name', async () => {
    openBackends();
    const table = await backendsTable();
    const headers = within(table)
      .getAllByRole('columnheader')
      .map((header) => header.textContent);
    expect(headers).toEqual(['Name', 'Type', 'Agent', 'Last modified', 'Actions']);
    expect(columnTexts(table, 0)).toEqual(['Firewall', 'Load balancer', 'Published']);
    expect(columnTexts(table, 1)).toEqual(['Fortinet FortiGate', 'HAProxy', 'Allowlist']);
    expect(columnTexts(table, 2)).toEqual(['edge-1', 'edge-1', 'None']);
  });

  it('sorts by type and reverses on the second click', async () => {
    const { user } = openBackends();
    const table = await backendsTable();
    await user.click(within(table).getByRole('button', { name: 'Type' }));
    expect(columnTexts(table, 0)).toEqual(['Published', 'Firewall', 'Load balancer']);
    await user.click(within(table).getByRole('button', { name: 'Type' }));
    expect(columnTexts(table, 0)).toEqual(['Load balancer', 'Firewall', 'Published']);
  });

  it('searches names and types, ignoring case', async () => {
    const { user } = openBackends();
    const table = await backendsTable();
    await user.type(screen.getByRole('textbox', { name: 'Search' }), 'HAPROXY');
    expect(columnTexts(table, 0)).toEqual(['Load balancer']);
  });

  it('speaks German', async () => {
    await i18n.changeLanguage('de');
    openBackends();
    const table = await screen.findByRole('table', { name: 'Backends' }, { timeout: 5000 });
    expect(within(table).getByRole('button', { name: 'Typ' })).toBeVisible();
    expect(screen.getByRole('button', { name: 'Backend anlegen' })).toBeVisible();
    expect(columnTexts(table, 2)).toContain('Keiner');
  });
});

describe('backends screen: create', { timeout: 30_000 }, () => {
  it('disables the types no agent can drive, with the reason, and always offers allowlist', async () => {
    const { user } = openBackends();
    await backendsTable();
    await user.click(screen.getByRole('button', { name: 'Create backend' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create backend' });
    const type = await enabledType(dialog);
    const option = (name: RegExp) => within(type).getByRole('option', { name });
    expect(option(/^Fortinet FortiGate \(No agent can run this backend type\)$/)).toBeDisabled();
    expect(option(/^HAProxy$/)).toBeEnabled();
    expect(option(/^Allowlist$/)).toBeEnabled();
  });

  it('lists the types an agent reports that the server cannot drive, disabled, only with enhanced-custom-script', async () => {
    const reporting = agentRecord({
      Capabilities: { ...agentRecord().Capabilities!, backend_types: ['ipset', 'haproxy', 'juniper'] },
    });
    const unknownOption = async (features: string[]) => {
      const { user, unmount } = openBackends({
        'GET /api/admin/agents': data(AgentListResponse, [reporting]),
        'GET /api/admin/status': data(AdminStatusResponse, adminStatus({ ExperimentalFeatures: features })),
      });
      await backendsTable();
      await user.click(screen.getByRole('button', { name: 'Create backend' }));
      const type = await enabledType(await screen.findByRole('dialog', { name: 'Create backend' }));
      const option = within(type).queryByRole('option', { name: /^juniper/ });
      unmount();
      return option;
    };
    expect(await unknownOption([])).toBeNull();
    const listed = await unknownOption(['enhanced-custom-script']);
    expect(listed).toHaveTextContent('juniper (The agent reports a backend type this server does not support)');
    expect(listed).toBeDisabled();
  });

  it('picks the only capable agent, defaults the address to its socket and sends the body', async () => {
    const { api, user } = openBackends({ 'POST /api/admin/backends': created });
    await backendsTable();
    await user.click(screen.getByRole('button', { name: 'Create backend' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create backend' });
    await user.type(within(dialog).getByRole('textbox', { name: /^Name/ }), 'Edge LB');
    await user.selectOptions(await enabledType(dialog), 'haproxy');
    const agent = within(dialog).getByRole('combobox', { name: /^Agent/ });
    expect(agent).toHaveValue(AGENTS[0]?.ID);
    expect(within(agent).getByRole('option', { name: 'fresh (The agent has never connected)' })).toBeDisabled();
    expect(within(dialog).getByRole('textbox', { name: /^Address/ })).toHaveValue('/run/haproxy/admin.sock');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Backend Edge LB created')).toBeVisible();
    expect(api.calls('POST /api/admin/backends')[0]?.body).toEqual({
      Name: 'Edge LB',
      AgentID: AGENTS[0]?.ID,
      Config: { haproxy: { Protocol: 'unix', Address: '/run/haproxy/admin.sock' } },
    });
    await waitFor(() => expect(api.calls('GET /api/admin/backends')).toHaveLength(2));
  });

  it('warns when the chosen agent is older than the type needs', async () => {
    const old = agentRecord({ ID: 'a-old', Name: 'old', Version: '1.5.0' });
    const { user } = openBackends({ 'GET /api/admin/agents': data(AgentListResponse, [old]) });
    await backendsTable();
    await user.click(screen.getByRole('button', { name: 'Create backend' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create backend' });
    await user.selectOptions(await enabledType(dialog), 'ipset');
    expect(within(dialog).getByRole('combobox', { name: /^Agent/ })).toHaveValue('a-old');
    expect(
      within(dialog).getByText('The agent is too old for this knoc type; update it with the OS package manager'),
    ).toBeVisible();
  });

  it('sends an allowlist without an agent', async () => {
    const { api, user } = openBackends({ 'POST /api/admin/backends': created });
    await backendsTable();
    await user.click(screen.getByRole('button', { name: 'Create backend' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create backend' });
    await user.type(within(dialog).getByRole('textbox', { name: /^Name/ }), 'List');
    await user.selectOptions(await enabledType(dialog), 'allowlist');
    expect(within(dialog).queryByRole('combobox', { name: /^Agent/ })).not.toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() =>
      expect(api.calls('POST /api/admin/backends')[0]?.body).toEqual({
        Name: 'List',
        AgentID: null,
        Config: { allowlist: {} },
      }),
    );
  });

  it('requires a name and a type', async () => {
    const { api, user } = openBackends();
    await backendsTable();
    await user.click(screen.getByRole('button', { name: 'Create backend' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create backend' });
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(dialog).findAllByText('This field is required')).toHaveLength(2);
    expect(api.calls('POST /api/admin/backends')).toHaveLength(0);
  });

  it('shows a taken name on the Name field', async () => {
    const { user } = openBackends({
      'POST /api/admin/backends': apiError(409, ErrorCodes.backendNameExists, 'Name'),
    });
    await backendsTable();
    await user.click(screen.getByRole('button', { name: 'Create backend' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create backend' });
    await user.type(within(dialog).getByRole('textbox', { name: /^Name/ }), 'Load balancer');
    await user.selectOptions(await enabledType(dialog), 'allowlist');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(dialog).findByText('A backend with that name already exists')).toBeVisible();
  });
});

describe('backends screen: nftables and the managed rule', { timeout: 30_000 }, () => {
  const nftAgent = agentRecord({ Capabilities: nftablesCapabilities() });

  it('creates an nftables backend that ends live connections on port 22', async () => {
    const { api, user } = openBackends({
      'GET /api/admin/agents': data(AgentListResponse, [nftAgent]),
      'POST /api/admin/backends': created,
    });
    await backendsTable();
    await user.click(screen.getByRole('button', { name: 'Create backend' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create backend' });
    await user.type(within(dialog).getByRole('textbox', { name: /^Name/ }), 'Jump host');
    await user.selectOptions(await enabledType(dialog), 'nftables');
    expect(within(dialog).getByRole('combobox', { name: /^Agent/ })).toHaveValue(nftAgent.ID);
    await user.type(within(dialog).getByRole('textbox', { name: /^Table/ }), 'postern');
    await user.click(within(dialog).getByRole('switch', { name: 'End live connections when access ends' }));
    await user.type(within(dialog).getByRole('textbox', { name: /^Chain/ }), 'input');
    await user.type(within(dialog).getByRole('textbox', { name: 'Port 1' }), '22');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() =>
      expect(api.calls('POST /api/admin/backends')[0]?.body).toEqual({
        Name: 'Jump host',
        AgentID: nftAgent.ID,
        Config: { nftables: { Family: 'inet', Table: 'postern', ManagedRule: { Chain: 'input', Ports: [22] } } },
      }),
    );
  });

  it('shows a stored managed rule switched on, and sends none once it is switched off', async () => {
    const stored = backendRecord({
      ID: 'b-set',
      Name: 'Edge sets',
      Type: 'ipset',
      Config: { ipset: { ManagedRule: { Chain: 'INPUT', Ports: [22, 443] } } },
    });
    const { api, user } = openBackends({ 'PUT /api/admin/backends/:id': created }, [stored]);
    await backendsTable();
    await user.click(screen.getByRole('button', { name: 'Edit Edge sets' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit backend Edge sets' });
    const toggle = within(dialog).getByRole('switch', { name: 'End live connections when access ends' });
    expect(toggle).toBeChecked();
    expect(within(dialog).getByRole('textbox', { name: /^Chain/ })).toHaveValue('INPUT');
    expect(within(dialog).getByRole('textbox', { name: 'Port 2' })).toHaveValue('443');
    await user.click(toggle);
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(api.calls('PUT /api/admin/backends/:id')).toHaveLength(1));
    expect(api.calls('PUT /api/admin/backends/:id')[0]?.body).toEqual({
      ID: 'b-set',
      Name: 'Edge sets',
      AgentID: stored.AgentID,
      Config: { ipset: {} },
    });
  });
});

describe('backends screen: edit and delete', { timeout: 30_000 }, () => {
  it('keeps the type fixed and the stored secret when it is left empty', async () => {
    const { api, user } = openBackends({ 'PUT /api/admin/backends/:id': created });
    await backendsTable();
    await user.click(screen.getByRole('button', { name: 'Edit Firewall' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit backend Firewall' });
    expect(within(dialog).getByRole('combobox', { name: /^Type/ })).toBeDisabled();
    expect(within(dialog).getByLabelText(/^API token/)).toHaveAttribute('placeholder', 'RECORDED');
    await user.clear(within(dialog).getByRole('textbox', { name: /^Address object prefix/ }));
    await user.type(within(dialog).getByRole('textbox', { name: /^Address object prefix/ }), 'pst_');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Backend Firewall updated')).toBeVisible();
    expect(api.calls('PUT /api/admin/backends/:id')[0]?.body).toEqual({
      ID: 'b-fw',
      Name: 'Firewall',
      AgentID: AGENTS[0]?.ID,
      Config: {
        fortios: { Url: 'https://fw-a.example.com', Insecure: false, Bearer: 'RECORDED', Prefix: 'pst_', VDOM: '' },
      },
    });
  });

  it('asks for the secret again when the URL changed, then saves with it', async () => {
    const { api, user } = openBackends({ 'PUT /api/admin/backends/:id': created });
    await backendsTable();
    await user.click(screen.getByRole('button', { name: 'Edit Firewall' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit backend Firewall' });
    const url = within(dialog).getByRole('textbox', { name: /^URL/ });
    await user.clear(url);
    await user.type(url, 'https://fw-b.example.com');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    const ask = await screen.findByRole('dialog', { name: 'Re-enter credentials' });
    expect(ask).toHaveTextContent('Changing the URI/Hostname requires re-entering sensitive credentials');
    expect(api.calls('PUT /api/admin/backends/:id')).toHaveLength(0);
    await user.type(within(ask).getByLabelText(/^API token/), 'new-token');
    await user.click(within(ask).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(api.calls('PUT /api/admin/backends/:id')).toHaveLength(1));
    expect(api.calls('PUT /api/admin/backends/:id')[0]?.body).toMatchObject({
      Config: { fortios: { Url: 'https://fw-b.example.com', Bearer: 'new-token' } },
    });
  });

  it('asks before deleting, deletes, says so and refreshes', async () => {
    const { api, user } = openBackends({ 'DELETE /api/admin/backends/:id': EMPTY_OK });
    await backendsTable();
    await user.click(screen.getByRole('button', { name: 'Delete Published' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete backend' });
    expect(dialog).toHaveTextContent('Delete backend "Published"?');
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('Backend deleted')).toBeVisible();
    expect(api.calls('DELETE /api/admin/backends/:id')[0]?.params).toEqual({ id: 'b-list' });
    await waitFor(() => expect(api.calls('GET /api/admin/backends')).toHaveLength(2));
  });
});
