import { configure, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { AdminStatusResponse, AgentListResponse, AgentResponse, type AgentRecord } from '@postern/protocol';
import i18n from '@/i18n/i18n';
import { agentCapabilities, agentRecord, newAgentRecord } from '@/test-support/records/agents';
import { adminStatus } from '@/test-support/fixtures';
import { findMenuItem } from '@/test-support/menu';
import { apiError, data, EMPTY_OK } from '@/test-support/typed-fake-api';
import { openAgentsPage, rowNames } from '@/test-support/screens/agents';

// The whole app renders for each test; on a busy machine a step can take longer than the default second.
configure({ asyncUtilTimeout: 5_000 });

/** The command with the fixtures' public URL (adminStatus's PublicUrl), whose script knows the server. */
const INSTALL = 'curl -fsSL https://postern.example/api/agent/install.sh | sudo sh -s -- --token';
/** The command without one: this browser's address, named with --server too. */
const GUESSED_INSTALL = `curl -fsSL ${window.location.origin}/api/agent/install.sh | sudo sh -s -- --token`;

/** The install command the dialog shows, once the admin status has come. */
async function expectCommand(dialog: HTMLElement, command: string) {
  await waitFor(() => expect(within(dialog).getByLabelText('Install command').textContent).toBe(command));
}

/** Opens the Actions menu of `name` and picks `item`. */
async function chooseAction(user: Awaited<ReturnType<typeof openAgentsPage>>['user'], name: string, item: string) {
  const button = screen.getByRole('button', { name: `Actions for ${name}` });
  await user.click(button);
  expect(button).toHaveAttribute('aria-expanded', 'true');
  await user.click(await findMenuItem(item));
}

describe('agents page: create and rename', { timeout: 30_000 }, () => {
  it('creates an agent, says agentCreated, then shows the install command and that the token can be viewed later', async () => {
    const created = newAgentRecord({ Name: 'edge-2' });
    let agents: AgentRecord[] = [];
    const { user, api } = await openAgentsPage(() => data(AgentListResponse, agents), {
      'POST /api/admin/agents': () => {
        agents = [created];
        return data(AgentResponse, created);
      },
    });
    await user.click(screen.getByRole('button', { name: 'Create agent' }));
    const form = await screen.findByRole('dialog', { name: 'Create agent' });
    await user.type(within(form).getByRole('textbox', { name: 'Name' }), '  edge-2 ');
    await user.click(within(form).getByRole('button', { name: 'Create' }));

    expect(await screen.findByText('Agent created')).toBeVisible();
    expect(api.calls('POST /api/admin/agents').map((call) => call.body)).toEqual([{ Name: 'edge-2' }]);
    const token = await screen.findByRole('dialog', { name: 'Install agent edge-2' });
    await expectCommand(token, `${INSTALL} ${created.Token}`);
    expect(within(token).getByLabelText('Token')).toHaveTextContent(created.Token);
    expect(token).toHaveTextContent('You can view this token again later');
    // The dialog fades in (a Mantine transition): visible once it has.
    await waitFor(() => expect(within(token).getByRole('button', { name: 'Copy the install command' })).toBeVisible());
    await waitFor(() => expect(rowNames()).toEqual(['edge-2']));
  });

  it('requires a name and sends nothing without one', async () => {
    const { user, api } = await openAgentsPage([]);
    await user.click(screen.getByRole('button', { name: 'Create agent' }));
    const form = await screen.findByRole('dialog', { name: 'Create agent' });
    await user.type(within(form).getByRole('textbox', { name: 'Name' }), '   ');
    await user.click(within(form).getByRole('button', { name: 'Create' }));
    expect(await within(form).findByText('Enter a name')).toBeVisible();
    expect(api.calls('POST /api/admin/agents')).toHaveLength(0);
  });

  it('shows the spec’s message on the name field when the name is taken, keeping the dialog open', async () => {
    const { user } = await openAgentsPage([], {
      'POST /api/admin/agents': apiError(409, 'err.agentNameExists', 'Name'),
    });
    await user.click(screen.getByRole('button', { name: 'Create agent' }));
    const form = await screen.findByRole('dialog', { name: 'Create agent' });
    const name = within(form).getByRole('textbox', { name: 'Name' });
    await user.type(name, 'edge-1');
    await user.click(within(form).getByRole('button', { name: 'Create' }));
    expect(await within(form).findByText('An agent with that name already exists')).toBeVisible();
    expect(name).toHaveAttribute('aria-invalid', 'true');
    expect(screen.queryByText('Agent created')).not.toBeInTheDocument();
  });

  it('shows any other refusal inside the dialog', async () => {
    const { user } = await openAgentsPage([], { 'POST /api/admin/agents': apiError(500, 'err.internalServerError') });
    await user.click(screen.getByRole('button', { name: 'Create agent' }));
    const form = await screen.findByRole('dialog', { name: 'Create agent' });
    await user.type(within(form).getByRole('textbox', { name: 'Name' }), 'edge-1');
    await user.click(within(form).getByRole('button', { name: 'Create' }));
    expect(await within(form).findByRole('alert')).toHaveTextContent('Internal server error');
  });

  it('renames with the spec’s update payload and says agentUpdated', async () => {
    const agent = agentRecord();
    const { user, api } = await openAgentsPage([agent], {
      'PUT /api/admin/agents/:id': ({ params }) =>
        data(AgentResponse, { ...agent, ID: params.id ?? '', Name: 'edge-renamed' }),
    });
    await chooseAction(user, 'edge-1', 'Edit');
    const form = await screen.findByRole('dialog', { name: 'Rename agent' });
    const name = within(form).getByRole('textbox', { name: 'Name' });
    expect(name).toHaveValue('edge-1');
    await user.clear(name);
    await user.type(name, 'edge-renamed');
    await user.click(within(form).getByRole('button', { name: 'Save' }));

    expect(await screen.findByText('Agent updated')).toBeVisible();
    const [call] = api.calls('PUT /api/admin/agents/:id');
    expect(call?.params.id).toBe(agent.ID);
    expect(call?.body).toEqual({ ID: agent.ID, Name: 'edge-renamed', Token: agent.Token });
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Rename agent' })).not.toBeInTheDocument());
  });
});

describe('agents page: token, rotation and delete', { timeout: 30_000 }, () => {
  it('shows the install command and token from View token', async () => {
    const agent = agentRecord();
    const { user } = await openAgentsPage([agent]);
    await chooseAction(user, 'edge-1', 'View token');
    const dialog = await screen.findByRole('dialog', { name: 'Install agent edge-1' });
    await expectCommand(dialog, `${INSTALL} ${agent.Token}`);
    expect(dialog).not.toHaveTextContent('You can view this token again later');
  });

  it('shows the command on one line that scrolls sideways, never wrapping inside the token', async () => {
    const agent = agentRecord();
    const { user } = await openAgentsPage([agent]);
    await chooseAction(user, 'edge-1', 'View token');
    const dialog = await screen.findByRole('dialog', { name: 'Install agent edge-1' });
    for (const label of ['Install command', 'Token']) {
      const block = within(dialog).getByLabelText(label);
      expect(block).toHaveStyle({ whiteSpace: 'pre', overflowX: 'auto' });
      expect(block.style.overflowWrap).not.toBe('anywhere');
      // Focusable, so a keyboard can scroll what is wider than the dialog.
      expect(block).toHaveAttribute('tabindex', '0');
    }
  });

  it('copies the whole command with its copy button, which says Copied for a moment', async () => {
    const agent = agentRecord();
    const { user } = await openAgentsPage([agent]);
    await chooseAction(user, 'edge-1', 'View token');
    const dialog = await screen.findByRole('dialog', { name: 'Install agent edge-1' });
    await expectCommand(dialog, `${INSTALL} ${agent.Token}`);
    await waitFor(() => expect(within(dialog).getByRole('button', { name: 'Copy the install command' })).toBeVisible());
    await user.click(within(dialog).getByRole('button', { name: 'Copy the install command' }));
    expect(await navigator.clipboard.readText()).toBe(`${INSTALL} ${agent.Token}`);
    expect(within(dialog).getByRole('button', { name: 'Copied' })).toBeVisible();
  });

  it('without a public URL on the server, names this address with --server as a guess and says how to set POSTERN_PUBLIC_URL', async () => {
    const agent = agentRecord();
    const { user } = await openAgentsPage([agent], {
      'GET /api/admin/status': data(AdminStatusResponse, adminStatus({ PublicUrl: null })),
    });
    await chooseAction(user, 'edge-1', 'View token');
    const dialog = await screen.findByRole('dialog', { name: 'Install agent edge-1' });
    const origin = window.location.origin;
    await waitFor(() => expect(dialog).toHaveTextContent('Check the server address in this command'));
    await expectCommand(dialog, `${GUESSED_INSTALL} ${agent.Token} --server ${origin}`);
    expect(dialog).toHaveTextContent(`names the address this browser uses, ${origin}, with --server: a guess`);
    expect(dialog).toHaveTextContent('add POSTERN_PUBLIC_URL=<the address agents and people use>');
  });

  it('with a public URL on the server, fetches the script from it, not from this browser’s address, and shows no hint', async () => {
    const agent = agentRecord();
    const { user } = await openAgentsPage([agent], {
      'GET /api/admin/status': data(AdminStatusResponse, adminStatus({ PublicUrl: 'https://access.example.com' })),
    });
    await chooseAction(user, 'edge-1', 'View token');
    const dialog = await screen.findByRole('dialog', { name: 'Install agent edge-1' });
    // Until the status has come the command names --server too; once it has, the script's default serves.
    await expectCommand(
      dialog,
      `curl -fsSL https://access.example.com/api/agent/install.sh | sudo sh -s -- --token ${agent.Token}`,
    );
    expect(within(dialog).getByLabelText('Install command')).not.toHaveTextContent(window.location.host);
    expect(dialog).not.toHaveTextContent('Check the server address');
    expect(dialog).not.toHaveTextContent('POSTERN_PUBLIC_URL');
  });

  it('rotates the token only after confirming, then shows the new one', async () => {
    const agent = agentRecord();
    // As the server answers it: a new token, no key yet, changed now.
    const rotated = {
      ...agent,
      Token: 'tok_rotated_cccccccccccccccccccccccccccccc',
      EnrolledAt: null,
      KeyFingerprint: null,
      LastModifiedAt: '2026-02-01T00:00:00.000Z',
    };
    const { user, api } = await openAgentsPage([agent], {
      'POST /api/admin/agents/:id/token': data(AgentResponse, rotated),
    });
    await chooseAction(user, 'edge-1', 'Rotate token');
    const confirm = await screen.findByRole('dialog', { name: 'Rotate token' });
    expect(confirm).toHaveTextContent('The current token stops working at once');
    expect(api.calls('POST /api/admin/agents/:id/token')).toHaveLength(0);
    await user.click(within(confirm).getByRole('button', { name: 'Rotate token' }));

    expect(await screen.findByText('Token rotated')).toBeVisible();
    expect(api.calls('POST /api/admin/agents/:id/token')[0]?.params.id).toBe(agent.ID);
    const dialog = await screen.findByRole('dialog', { name: 'Install agent edge-1' });
    expect(within(dialog).getByLabelText('Token')).toHaveTextContent(rotated.Token);
    expect(dialog).toHaveTextContent('The previous token no longer works');
  });

  it('shows a refused rotation in the Error dialog', async () => {
    const { user } = await openAgentsPage([agentRecord()], {
      'POST /api/admin/agents/:id/token': apiError(404, 'err.agentNotFound'),
    });
    await chooseAction(user, 'edge-1', 'Rotate token');
    const confirm = await screen.findByRole('dialog', { name: 'Rotate token' });
    await user.click(within(confirm).getByRole('button', { name: 'Rotate token' }));
    const error = await screen.findByRole('dialog', { name: 'Error' });
    expect(within(error).getByRole('alert')).toHaveTextContent('The agent was not found');
  });

  it('deletes after confirming, says Agent deleted and refreshes the list', async () => {
    let agents = [agentRecord()];
    const { user, api } = await openAgentsPage(() => data(AgentListResponse, agents), {
      'DELETE /api/admin/agents/:id': () => {
        agents = [];
        return EMPTY_OK;
      },
    });
    await chooseAction(user, 'edge-1', 'Delete');
    const confirm = await screen.findByRole('dialog', { name: 'Delete agent' });
    expect(confirm).toHaveTextContent('Delete the agent “edge-1”?');
    await user.click(within(confirm).getByRole('button', { name: 'Delete' }));

    expect(await screen.findByText('Agent deleted')).toBeVisible();
    expect(api.calls('DELETE /api/admin/agents/:id')[0]?.params.id).toBe(agentRecord().ID);
    await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent('No agents yet.'));
  });

  it('does nothing when the deletion is cancelled', async () => {
    const { user, api } = await openAgentsPage([agentRecord()]);
    await chooseAction(user, 'edge-1', 'Delete');
    const confirm = await screen.findByRole('dialog', { name: 'Delete agent' });
    await user.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Delete agent' })).not.toBeInTheDocument());
    expect(api.calls('DELETE /api/admin/agents/:id')).toHaveLength(0);
    expect(rowNames()).toEqual(['edge-1']);
  });

  it('refuses at once, naming them, to delete an agent its list shows backends on', async () => {
    const agent = agentRecord({ Backends: [{ ID: 'b1', Name: 'office-firewall', Type: 'ipset' }] });
    const { user, api } = await openAgentsPage([agent]);
    await chooseAction(user, 'edge-1', 'Delete');
    const error = await screen.findByRole('dialog', { name: 'Error' });
    expect(within(error).getByRole('alert')).toHaveTextContent(
      'Please detach all backends from this agent before deleting it: office-firewall',
    );
    expect(api.calls('DELETE /api/admin/agents/:id')).toHaveLength(0);
  });

  it('shows the server’s refusal of a delete in the Error dialog and keeps the agent', async () => {
    const { user } = await openAgentsPage([agentRecord()], {
      'DELETE /api/admin/agents/:id': apiError(409, 'err.agentHasBackends'),
    });
    await chooseAction(user, 'edge-1', 'Delete');
    const confirm = await screen.findByRole('dialog', { name: 'Delete agent' });
    await user.click(within(confirm).getByRole('button', { name: 'Delete' }));
    const error = await screen.findByRole('dialog', { name: 'Error' });
    expect(within(error).getByRole('alert')).toHaveTextContent(
      'Please detach all backends from this agent before deleting it',
    );
    expect(screen.queryByText('Agent deleted')).not.toBeInTheDocument();
    await user.click(within(error).getAllByRole('button', { name: 'Close' }).at(-1)!);
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Error' })).not.toBeInTheDocument());
    expect(rowNames()).toEqual(['edge-1']);
  });
});

describe('agents page: the install dialog shows the enrolment live', { timeout: 30_000 }, () => {
  it('waits for a new agent, then shows it connected with its key fingerprint and what it found', async () => {
    const created = newAgentRecord({ Name: 'edge-2' });
    let agents: AgentRecord[] = [];
    const { user } = await openAgentsPage(() => data(AgentListResponse, agents), {
      'POST /api/admin/agents': () => {
        agents = [created];
        return data(AgentResponse, created);
      },
    });
    await user.click(screen.getByRole('button', { name: 'Create agent' }));
    const form = await screen.findByRole('dialog', { name: 'Create agent' });
    await user.type(within(form).getByRole('textbox', { name: 'Name' }), 'edge-2');
    await user.click(within(form).getByRole('button', { name: 'Create' }));
    const dialog = await screen.findByRole('dialog', { name: 'Install agent edge-2' });
    const live = () => within(dialog).getByRole('region', { name: /edge-2|Waiting/ });
    await waitFor(() => expect(live()).toHaveTextContent('Waiting for the agent to connect…'));
    expect(live()).not.toHaveTextContent('Key fingerprint');

    // The admin runs the command; the agent enrols and says hello. The dialog's next poll shows it.
    const enrolled = agentRecord({
      ...created,
      LastSeen: new Date().toISOString(),
      Version: '1.9.0',
      ExternalIP: '198.51.100.20',
      Capabilities: agentCapabilities(),
      Online: true,
      EnrolledAt: new Date().toISOString(),
      KeyFingerprint: 'SHA256:Zm9vYmFyYmF6cXV4',
    });
    agents = [enrolled];
    const connected = await within(dialog).findByRole('region', { name: 'edge-2 is connected' }, { timeout: 6_000 });
    expect(within(connected).getByText('SHA256:Zm9vYmFyYmF6cXV4')).toBeVisible();
    expect(connected).toHaveTextContent('198.51.100.20');
    expect(connected).toHaveTextContent('Debian GNU/Linux 12 (bookworm)');
    expect(connected).toHaveTextContent('IP set (Linux), HAProxy, Script, Knoc proxy');
    expect(connected).toHaveTextContent('postern-v4 (inet)');
    expect(connected).toHaveTextContent('postern-v6 (inet6)');
    expect(connected).toHaveTextContent('Enabled');
  });

  it('after a rotation waits for the agent again, though the list fetched before still shows the old key', async () => {
    const agent = agentRecord();
    const rotated = {
      ...agent,
      Token: 'tok_rotated_dddddddddddddddddddddddddddddd',
      EnrolledAt: null,
      KeyFingerprint: null,
      Online: false,
      LastModifiedAt: '2026-02-01T00:00:00.000Z',
    };
    // The list keeps answering the old record: the dialog trusts the newer one it opened with.
    const { user } = await openAgentsPage([agent], {
      'POST /api/admin/agents/:id/token': data(AgentResponse, rotated),
    });
    await chooseAction(user, 'edge-1', 'Rotate token');
    const confirm = await screen.findByRole('dialog', { name: 'Rotate token' });
    await user.click(within(confirm).getByRole('button', { name: 'Rotate token' }));
    const dialog = await screen.findByRole('dialog', { name: 'Install agent edge-1' });
    expect(within(dialog).getByLabelText('Token')).toHaveTextContent(rotated.Token);
    // The dialog fades in (a Mantine transition): visible once it has.
    await waitFor(() =>
      expect(within(dialog).getByRole('region', { name: 'Waiting for the agent to connect…' })).toBeVisible(),
    );
    expect(dialog).not.toHaveTextContent(agent.KeyFingerprint ?? 'no fingerprint');
  });

  it('says so in German for an agent that enrolled but is not connected', async () => {
    const agent = agentRecord({ Online: false });
    const { user } = await openAgentsPage([agent]);
    await i18n.changeLanguage('de');
    await user.click(screen.getByRole('button', { name: 'Aktionen für edge-1' }));
    await user.click(await findMenuItem('Token anzeigen'));
    const dialog = await screen.findByRole('dialog', { name: 'Agent edge-1 installieren' });
    const live = within(dialog).getByRole('region', { name: 'edge-1 ist registriert, aber nicht verbunden' });
    expect(live).toHaveTextContent('systemctl status postern-agent');
    expect(live).toHaveTextContent('Schlüssel-Fingerabdruck');
    expect(live).toHaveTextContent('SHA256:abcdefghijklmnop');
  });
});
