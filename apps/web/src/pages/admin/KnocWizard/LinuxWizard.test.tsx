import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { agentRecord, nftablesCapabilities } from '@/test-support/records/agents';
import { knocFieldsBody } from '@/test-support/records/knoc-wizard';
import { currentPath } from '@/test-support/render-app';
import {
  selectNamed,
  pick,
  EDGE,
  FRESH,
  fillOptions,
  next,
  openWizard,
  select,
  stepHeading,
  summary,
} from '@/test-support/screens/knoc-wizard';

describe('Linux wizard', { timeout: 30_000 }, () => {
  it('walks agent, settings, options, users and review, then sends the one create call', async () => {
    const { api, user } = openWizard('/admin/knocs/new/linux');
    await stepHeading('Agent');
    // The only capable agent is chosen on its own.
    await waitFor(() => expect(selectNamed('Agent')).toHaveDisplayValue('edge-1'));
    await next(user, 'Settings');
    await pick(user, 'IPv4 set', 'postern-v4');
    await next(user, 'Knoc options');
    await user.type(screen.getByRole('textbox', { name: /Maximum grant duration/ }), '60');
    await fillOptions(user, 'SSH');
    await select(user, 'Ada Lovelace');
    await select(user, 'Operations');
    await next(user, 'Review');
    expect(summary('Agent').getByText('edge-1')).toBeVisible();
    expect(summary('Users and groups').getByText('Ada Lovelace')).toBeVisible();
    expect(api.calls('POST /api/admin/knocs')).toHaveLength(0);

    await user.click(screen.getByRole('button', { name: 'Create knoc' }));
    await waitFor(() => expect(currentPath()).toBe('/admin/knocs?viewKnocId=k-new'));
    expect(api.calls('POST /api/admin/knocs').map((call) => call.body)).toEqual([
      {
        Backend: { Name: 'SSH', AgentID: EDGE.ID, Config: { ipset: {} } },
        ApiKey: { Option: 'none' },
        Knoc: {
          ...knocFieldsBody({ Description: 'SSH', MaximumGrantDuration: 3600 }),
          Config: { ipset: { V4SetName: 'postern-v4', V6SetName: '' } },
        },
        UserIDs: ['u-ada'],
        GroupIDs: ['g-ops'],
      },
    ]);
  });
});

describe('Linux wizard with nftables', { timeout: 30_000 }, () => {
  const NFT_EDGE = agentRecord({
    ID: '0190a0b0-0000-7000-8000-000000000002',
    Name: 'nft-edge',
    Capabilities: nftablesCapabilities(),
  });

  it('creates an nftables knoc: table and sets from what the agent reported, with the managed rule', async () => {
    const { api, user } = openWizard('/admin/knocs/new/linux', {}, [NFT_EDGE, FRESH]);
    await stepHeading('Agent');
    await user.click(await screen.findByRole('radio', { name: /^nftables/ }));
    await waitFor(() => expect(selectNamed('Agent')).toHaveDisplayValue('nft-edge'));
    await next(user, 'Settings');
    await pick(user, 'Table', 'postern (inet)');
    await pick(user, 'IPv4 set', 'allow4');
    await user.click(screen.getByRole('switch', { name: 'End live connections when access ends' }));
    await user.type(screen.getByRole('textbox', { name: 'Chain' }), 'input');
    await user.type(screen.getByRole('textbox', { name: 'Port 1' }), '22');
    await next(user, 'Knoc options');
    await fillOptions(user, 'SSH');
    await next(user, 'Review');
    expect(summary('Settings').getByText('Chain input, TCP ports 22')).toBeVisible();
    expect(summary('Settings').getByText('postern')).toBeVisible();

    await user.click(screen.getByRole('button', { name: 'Create knoc' }));
    await waitFor(() => expect(currentPath()).toBe('/admin/knocs?viewKnocId=k-new'));
    expect(api.calls('POST /api/admin/knocs').map((call) => call.body)).toEqual([
      {
        Backend: {
          Name: 'SSH',
          AgentID: NFT_EDGE.ID,
          Config: { nftables: { Family: 'inet', Table: 'postern', ManagedRule: { Chain: 'input', Ports: [22] } } },
        },
        ApiKey: { Option: 'none' },
        Knoc: {
          ...knocFieldsBody({ Description: 'SSH' }),
          Config: { nftables: { V4SetName: 'allow4', V6SetName: '' } },
        },
        UserIDs: [],
        GroupIDs: [],
      },
    ]);
  });

  it('shows a set without flags timeout disabled, and clears a set the next table does not hold', async () => {
    const { user } = openWizard('/admin/knocs/new/linux', {}, [NFT_EDGE]);
    await stepHeading('Agent');
    await user.click(await screen.findByRole('radio', { name: /^nftables/ }));
    await next(user, 'Settings');
    await pick(user, 'Table', 'postern (inet)');
    const combobox = screen.getByRole('combobox', { name: 'IPv4 set' });
    await user.click(combobox);
    const listbox = document.getElementById(combobox.getAttribute('aria-controls') ?? '') as HTMLElement;
    const noTimeout = within(listbox).getByRole('option', {
      name: 'static4 (no timeout flag: Postern needs flags timeout)',
      hidden: true,
    });
    expect(noTimeout).toHaveAttribute('data-combobox-disabled', 'true');
    await pick(user, 'IPv4 set', 'allow4');
    expect(combobox).toHaveValue('allow4');
    await pick(user, 'Table', 'filter (ip)');
    expect(screen.getByRole('combobox', { name: 'IPv4 set' })).toHaveValue('');
  });

  it('offers nftables only when some agent can drive it, saying why not', async () => {
    openWizard('/admin/knocs/new/linux');
    await stepHeading('Agent');
    const nftables = await screen.findByRole('radio', { name: /^nftables/ });
    expect(nftables).toBeDisabled();
    expect(nftables).toHaveAccessibleDescription('No agent can run this backend type');
    expect(screen.getByRole('radio', { name: /^IP set/ })).toBeChecked();
  });

  it('starts on nftables when the agents can drive only that', async () => {
    const nftOnly = agentRecord({
      ...NFT_EDGE,
      Capabilities: nftablesCapabilities({ backend_types: ['nftables'] }),
    });
    openWizard('/admin/knocs/new/linux', {}, [nftOnly]);
    await stepHeading('Agent');
    await waitFor(() => expect(screen.getByRole('radio', { name: /^nftables/ })).toBeChecked());
    expect(screen.getByRole('radio', { name: /^IP set/ })).toBeDisabled();
    await waitFor(() => expect(selectNamed('Agent')).toHaveDisplayValue('nft-edge'));
  });
});
