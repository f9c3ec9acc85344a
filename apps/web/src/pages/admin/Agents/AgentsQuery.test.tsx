import { configure, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { AgentListResponse, type AgentRecord } from '@postern/protocol';
import { agentRecord, newAgentRecord } from '@/test-support/records/agents';
import { APP_LOAD, currentPath } from '@/test-support/render-app';
import { openAdminScreen } from '@/test-support/screens/admin';
import { data } from '@/test-support/typed-fake-api';
import { rowNames } from '@/test-support/screens/agents';

// The whole app renders for each test; on a busy machine a step can take longer than the default second.
configure({ asyncUtilTimeout: 5_000 });

const AGENTS = [agentRecord({ Online: false }), newAgentRecord()];

/** Opens the agents page at `query` with `agents` listed (or a list handler holding the answer). */
function openAgentsAt(query: string, agents: AgentRecord[] | (() => Promise<ReturnType<typeof data>>) = AGENTS) {
  return openAdminScreen(`/admin/agents${query}`, {
    'GET /api/admin/agents': Array.isArray(agents) ? data(AgentListResponse, agents) : agents,
  });
}

describe('agents page: the query opens a dialog once', { timeout: 30_000 }, () => {
  it('opens the Create agent dialog on ?new=1 and clears the query, replacing the history entry', async () => {
    const entries = window.history.length;
    openAgentsAt('?new=1', []);
    expect(await screen.findByRole('dialog', { name: 'Create agent' }, APP_LOAD)).toBeInTheDocument();
    await waitFor(() => expect(currentPath()).toBe('/admin/agents'));
    // Replaced, not pushed: Back does not return to the query and open the dialog again.
    expect(window.history.length).toBe(entries);
  });

  it('opens the install dialog of ?install=<id> once the list has loaded, then clears the query', async () => {
    let answer: (value: ReturnType<typeof data>) => void = () => undefined;
    const held = new Promise<ReturnType<typeof data>>((resolve) => (answer = resolve));
    openAgentsAt(`?install=${newAgentRecord().ID}`, () => held);
    await screen.findByRole('heading', { level: 1, name: 'Agents' }, APP_LOAD);
    // Without the list there is no record to show: no dialog yet, and the query waits for it.
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(currentPath()).toBe(`/admin/agents?install=${newAgentRecord().ID}`);

    answer(data(AgentListResponse, AGENTS));
    const dialog = await screen.findByRole('dialog', { name: 'Install agent fresh' });
    expect(dialog).toHaveTextContent('Waiting for the agent to connect…');
    // Opened to view the token: no note of a create or a rotation.
    expect(dialog).not.toHaveTextContent('You can view this token again later');
    expect(dialog).not.toHaveTextContent('The previous token no longer works');
    await waitFor(() => expect(currentPath()).toBe('/admin/agents'));
  });

  it('ignores an unknown id quietly: the list shows, no dialog, and the query is cleared', async () => {
    openAgentsAt('?install=0190a0b0-0000-7000-8000-00000000ffff');
    await screen.findByRole('table', { name: 'Agents' }, APP_LOAD);
    await waitFor(() => expect(currentPath()).toBe('/admin/agents'));
    expect(rowNames()).toEqual(['edge-1', 'fresh']);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(screen.queryByRole('dialog', { name: 'Error' })).not.toBeInTheDocument();
  });

  it('keeps any other query', async () => {
    openAgentsAt('?new=1&other=kept', []);
    await screen.findByRole('dialog', { name: 'Create agent' }, APP_LOAD);
    await waitFor(() => expect(currentPath()).toBe('/admin/agents?other=kept'));
  });
});
