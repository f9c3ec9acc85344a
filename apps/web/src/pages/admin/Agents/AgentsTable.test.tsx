import { act, configure, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AdminStatusResponse, AGENTS_PAGE_REFRESH_MS, AgentListResponse } from '@postern/protocol';
import { agentCapabilities, agentRecord, nftablesCapabilities, newAgentRecord } from '@/test-support/records/agents';
import { stubClipboard } from '@/test-support/clipboard';
import { adminStatus, signInAdmin } from '@/test-support/fixtures';
import { renderApp } from '@/test-support/render-app';
import { apiError, data, installTypedFakeApi } from '@/test-support/typed-fake-api';
import { bodyRows, openAgentsPage, rowNames, rowOf } from '@/test-support/screens/agents';

// The whole app renders for each test; on a busy machine a step can take longer than the default second.
configure({ asyncUtilTimeout: 5_000 });

const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

afterEach(() => vi.useRealTimers());

describe('agents page: the table', { timeout: 30_000 }, () => {
  it('shows the heading, the documentation link, Create and the spec’s columns', async () => {
    await openAgentsPage([agentRecord()]);
    expect(screen.getByRole('heading', { level: 1, name: 'Agents' })).toBeVisible();
    const docs = screen.getByRole('link', { name: 'Agents documentation' });
    // Served by the Postern server itself (docs/agents.md), never a site the project does not own.
    expect(docs).toHaveAttribute('href', '/api/docs/agents');
    expect(docs).toHaveAttribute('target', '_blank');
    expect(docs).toHaveAttribute('rel', 'noopener noreferrer');
    expect(screen.getByRole('button', { name: 'Create agent' })).toBeVisible();
    const headers = screen.getAllByRole('columnheader').map((header) => header.textContent);
    expect(headers).toEqual(['Name', 'Capabilities', 'Activity', 'Version', 'IP address', 'Actions']);
  });

  it('fills each column: OS, relative last seen, version, address without its port', async () => {
    await openAgentsPage([agentRecord({ LastSeen: ago(3), ExternalIP: '203.0.113.5:4711', Online: false })]);
    const cells = within(rowOf('edge-1')).getAllByRole('cell');
    expect(cells[1]).toHaveTextContent('Debian GNU/Linux 12 (bookworm)');
    expect(cells[2]).toHaveTextContent('3 minutes ago');
    expect(cells[2]).toHaveTextContent('Offline');
    expect(cells[3]).toHaveTextContent('1.9.0');
    expect(cells[4]).toHaveTextContent(/^203\.0\.113\.5$/);
    expect(within(cells[5]!).getByRole('button', { name: 'Actions for edge-1' })).toBeVisible();
  });

  it('shows an agent that never connected as awaiting connection, with its token to copy', async () => {
    const { user } = await openAgentsPage([newAgentRecord()]);
    const writeText = stubClipboard();
    const row = rowOf('fresh');
    expect(row).toHaveTextContent('Awaiting connection');
    expect(row).toHaveTextContent('Not reported yet');
    expect(row).not.toHaveTextContent(newAgentRecord().Token);
    await user.click(within(row).getByRole('button', { name: 'Copy the token of fresh' }));
    expect(writeText).toHaveBeenCalledWith(newAgentRecord().Token);
    expect(await within(row).findByRole('button', { name: 'Token copied' })).toBeVisible();
  });

  it('colours versions: red below the minimum, yellow below the newest, green otherwise', async () => {
    await openAgentsPage(
      [
        agentRecord({ ID: 'a1', Name: 'old', Version: '1.5.0' }),
        agentRecord({ ID: 'a2', Name: 'behind', Version: '1.9.0' }),
        agentRecord({ ID: 'a3', Name: 'newest', Version: '1.10.0' }),
        newAgentRecord({ ID: 'a4', Name: 'silent' }),
      ],
      {
        'GET /api/admin/status': data(
          AdminStatusResponse,
          adminStatus({
            MinimumRequiredAgentVersion: '1.6.0',
            ServerVersion: '1.9.0',
            AvailableAgentVersions: [{ version: '1.10.0', urgency: 'low', description: '', changelog_link: '' }],
          }),
        ),
      },
    );
    const badge = (name: string) => within(rowOf(name)).getAllByRole('cell')[3]!;
    const state = (name: string, text: string) => within(badge(name)).getByText(text).closest('[data-state]');
    await waitFor(() => expect(within(badge('behind')).getByText('Out of date')).toBeVisible());
    expect(state('old', '1.5.0')).toHaveAttribute('data-state', 'incompatible');
    expect(badge('old')).toHaveTextContent('Incompatible');
    expect(state('behind', '1.9.0')).toHaveAttribute('data-state', 'outdated');
    expect(state('newest', '1.10.0')).toHaveAttribute('data-state', 'current');
    expect(badge('newest')).toHaveTextContent('Up to date');
    expect(state('silent', 'Unknown')).toHaveAttribute('data-state', 'unknown');
  });

  it('sorts by name, reverses on the second click, and sorts by version numerically', async () => {
    const { user } = await openAgentsPage([
      agentRecord({ ID: 'a1', Name: 'bravo', Version: '1.10.0' }),
      agentRecord({ ID: 'a2', Name: 'alpha', Version: '1.9.0' }),
      agentRecord({ ID: 'a3', Name: 'charlie', Version: '1.6.0' }),
    ]);
    expect(rowNames()).toEqual(['alpha', 'bravo', 'charlie']);
    await user.click(screen.getByRole('button', { name: 'Name' }));
    expect(rowNames()).toEqual(['charlie', 'bravo', 'alpha']);
    await user.click(screen.getByRole('button', { name: 'Version' }));
    expect(rowNames()).toEqual(['charlie', 'alpha', 'bravo']);
  });

  it('sorts by activity with the latest first and never-connected agents last', async () => {
    const { user } = await openAgentsPage([
      agentRecord({ ID: 'a1', Name: 'hour', LastSeen: ago(60) }),
      newAgentRecord({ ID: 'a2', Name: 'never' }),
      agentRecord({ ID: 'a3', Name: 'minute', LastSeen: ago(1) }),
    ]);
    await user.click(screen.getByRole('button', { name: 'Activity' }));
    expect(rowNames()).toEqual(['minute', 'hour', 'never']);
  });

  it('searches every field: name, OS, IP, set names and the state words', async () => {
    const { user } = await openAgentsPage([
      agentRecord({ ID: 'a1', Name: 'berlin', ExternalIP: '198.51.100.7' }),
      agentRecord({
        ID: 'a2',
        Name: 'munich',
        Capabilities: agentCapabilities({ 'os-release': { NAME: 'Ubuntu', VERSION: '24.04' } }),
      }),
      newAgentRecord({ ID: 'a3', Name: 'hamburg' }),
    ]);
    const search = screen.getByRole('textbox', { name: 'Search agents' });
    await user.click(search);
    await user.paste('ubuntu');
    expect(rowNames()).toEqual(['munich']);
    await user.clear(search);
    await user.paste('198.51');
    expect(rowNames()).toEqual(['berlin']);
    await user.clear(search);
    await user.paste('AWAITING');
    expect(rowNames()).toEqual(['hamburg']);
    await user.clear(search);
    await user.paste('zzz');
    expect(bodyRows()).toHaveLength(0);
    expect(screen.getByRole('status')).toHaveTextContent('Nothing matches the search');
  });

  it('says how to start when there are no agents', async () => {
    await openAgentsPage([]);
    expect(screen.getByRole('status')).toHaveTextContent('No agents yet.');
  });

  it('shows a failed list in an Error alert', async () => {
    installTypedFakeApi({ 'GET /api/admin/agents': apiError(403, 'err.unauthorised') });
    signInAdmin();
    renderApp('/admin/agents');
    expect(await screen.findByText('Unauthorised')).toBeVisible();
    expect(screen.queryByRole('table', { name: 'Agents' })).not.toBeInTheDocument();
  });

  it('asks for the list again every 5 seconds and shows what changed', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let names = ['edge-1'];
    const { api } = await openAgentsPage(() =>
      data(
        AgentListResponse,
        names.map((Name, index) => agentRecord({ ID: `a${index}`, Name })),
      ),
    );
    const listCalls = () => api.calls('GET /api/admin/agents').length;
    const before = listCalls();
    names = ['edge-1', 'edge-2'];
    await act(() => vi.advanceTimersByTimeAsync(AGENTS_PAGE_REFRESH_MS - 1_000));
    expect(listCalls()).toBe(before);
    await act(() => vi.advanceTimersByTimeAsync(1_000));
    expect(listCalls()).toBe(before + 1);
    await waitFor(() => expect(rowNames()).toEqual(['edge-1', 'edge-2']));
    await act(() => vi.advanceTimersByTimeAsync(AGENTS_PAGE_REFRESH_MS));
    expect(listCalls()).toBe(before + 2);
    expect(AGENTS_PAGE_REFRESH_MS).toBe(5_000);
  });
});

describe('agents page: the capabilities dialog', { timeout: 30_000 }, () => {
  it('opens from the OS name and shows each capability with its state and documentation', async () => {
    const { user } = await openAgentsPage([
      agentRecord({
        Capabilities: agentCapabilities({
          ipset: { command_available: true, sudo_enabled: false, ipsets: [] },
          script: { enabled: false },
          backend_types: ['ipset', 'haproxy', 'fortios', 'azure', 'newer-firewall'],
        }),
      }),
    ]);
    // Named by what it shows first, then what it does.
    await user.click(
      screen.getByRole('button', { name: 'Debian GNU/Linux 12 (bookworm): show the capabilities of edge-1' }),
    );
    const dialog = await screen.findByRole('dialog', { name: 'Capabilities of edge-1' });
    expect(dialog).toHaveTextContent('Operating system: Debian GNU/Linux 12 (bookworm)');

    const section = (name: string) => within(dialog).getByRole('region', { name });
    expect(within(section('IPSet')).getByRole('img', { name: 'Unavailable' })).toBeVisible();
    expect(section('IPSet')).toHaveTextContent('The agent may not run ipset (sudo is not enabled)');
    expect(section('IPSet')).toHaveTextContent('no ipsets found');
    expect(within(section('Custom Script')).getByRole('img', { name: 'Unavailable' })).toBeVisible();
    expect(section('Custom Script')).toHaveTextContent('Disabled in the agent configuration');
    expect(within(section('HAProxy')).getByRole('img', { name: 'Available' })).toBeVisible();
    expect(section('HAProxy')).toHaveTextContent('/var/run/haproxy.sock');
    expect(within(section('Other')).getByRole('img', { name: 'Available' })).toBeVisible();
    // By their names, as the backend screens give them; a type this console does not know by its code.
    expect(section('Other')).toHaveTextContent('Also drives: Azure NSG, Fortinet FortiGate, newer-firewall');
    for (const name of ['IPSet', 'Custom Script', 'HAProxy', 'Other']) {
      expect(within(section(name)).getByRole('link', { name: `${name} documentation` })).toHaveAttribute(
        'href',
        '/api/docs/agents',
      );
    }
  });

  it('lists the IP sets an agent found', async () => {
    const { user } = await openAgentsPage([agentRecord()]);
    await user.click(screen.getByRole('button', { name: /: show the capabilities of edge-1$/ }));
    const dialog = await screen.findByRole('dialog', { name: 'Capabilities of edge-1' });
    const ipset = within(dialog).getByRole('region', { name: 'IPSet' });
    expect(within(ipset).getByRole('img', { name: 'Available' })).toBeVisible();
    expect(
      within(ipset)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['postern-v4 inet', 'postern-v6 inet6']);
  });

  it('shows nftables: the command, the right to run it, and each set with its table, type and timeout flag', async () => {
    const { user } = await openAgentsPage([agentRecord({ Capabilities: nftablesCapabilities() })]);
    await user.click(screen.getByRole('button', { name: /: show the capabilities of edge-1$/ }));
    const dialog = await screen.findByRole('dialog', { name: 'Capabilities of edge-1' });
    const nftables = within(dialog).getByRole('region', { name: 'nftables' });
    expect(within(nftables).getByRole('img', { name: 'Available' })).toBeVisible();
    expect(nftables).toHaveTextContent('nft command: available');
    expect(nftables).toHaveTextContent('May run nft: yes');
    const sets = within(nftables).getByRole('list', { name: 'nftables sets the agent may change' });
    expect(
      within(sets)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual([
      'allow4 inet postern ipv4_addr flags timeout',
      'allow6 inet postern ipv6_addr flags timeout',
      'static4 inet postern ipv4_addr no timeout flag: not usable',
      'office4 ip filter ipv4_addr flags timeout',
    ]);
  });

  it('says when an agent reports no nftables at all (a version before the nftables backend)', async () => {
    const { user } = await openAgentsPage([agentRecord()]);
    await user.click(screen.getByRole('button', { name: /: show the capabilities of edge-1$/ }));
    const dialog = await screen.findByRole('dialog', { name: 'Capabilities of edge-1' });
    const nftables = within(dialog).getByRole('region', { name: 'nftables' });
    expect(within(nftables).getByRole('img', { name: 'Unavailable' })).toBeVisible();
    expect(nftables).toHaveTextContent('Not reported: this agent version does not drive nftables');
  });
});
