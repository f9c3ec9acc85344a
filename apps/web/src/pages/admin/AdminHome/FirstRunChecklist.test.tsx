import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { firstRunSteps } from './components/FirstRunChecklist';
import { AdminStatusResponse, AgentListResponse, type AdminStatus, type AgentRecord } from '@postern/protocol';
import i18n from '@/i18n/i18n';
import { adminStatus, licensingSummary } from '@/test-support/fixtures';
import { agentRecord, newAgentRecord } from '@/test-support/records/agents';
import { APP_LOAD, currentPath } from '@/test-support/render-app';
import { openAdminScreen } from '@/test-support/screens/admin';
import { data } from '@/test-support/typed-fake-api';

const FRESH = adminStatus();
const DONE = adminStatus({ Licensing: licensingSummary(), ACLCount: 2, UserCount: 5 });

/** Opens the admin home; `state` is read on every request, so a test can change what the server says. */
function openHome(state: { status: AdminStatus; agents: AgentRecord[] }) {
  return openAdminScreen('/admin/home', {
    'GET /api/admin/status': () => data(AdminStatusResponse, state.status),
    'GET /api/admin/agents': () => data(AgentListResponse, state.agents),
  });
}

async function checklist() {
  return screen.findByRole('region', { name: 'Getting started' }, APP_LOAD);
}

/** Each step's link text and whether it is shown as done, in the list's order. */
function steps(list: HTMLElement) {
  return within(list)
    .getAllByRole('listitem')
    .map((item) => ({
      name: within(item).getByRole('link').textContent,
      href: within(item).getByRole('link').getAttribute('href'),
      done: within(item).queryByText('Done') !== null,
    }));
}

describe('first-run checklist', () => {
  it('on a fresh install lists the four steps, none done, each linking to where it is done', async () => {
    openHome({ status: FRESH, agents: [] });
    const list = await checklist();
    expect(within(list).getByText('0 of 4 done')).toBeInTheDocument();
    // The agent step's link waits for the agents list, which may come after the status.
    await waitFor(() =>
      expect(steps(list)).toEqual([
        { name: 'Install your licence', href: '/admin/settings?tab=licence', done: false },
        { name: 'Connect an agent', href: '/admin/agents?new=1', done: false },
        { name: 'Create your first knoc', href: '/admin/knocs/new', done: false },
        { name: 'Add your first user', href: '/admin/users', done: false },
      ]),
    );
  });

  it('ticks the licence, knoc and user from the status, and an agent only when one is online', async () => {
    openHome({ status: DONE, agents: [agentRecord({ Online: false })] });
    const list = await checklist();
    await waitFor(() => expect(steps(list).map((step) => step.done)).toEqual([true, false, true, true]));
    expect(within(list).getByText('3 of 4 done')).toBeInTheDocument();
  });

  it('turns a step green when the refreshed data says it is done', async () => {
    const state = { status: FRESH, agents: [] as AgentRecord[] };
    const { queryClient } = openHome(state);
    const list = await checklist();
    expect(steps(list).every((step) => !step.done)).toBe(true);

    state.agents = [agentRecord({ Online: true })];
    state.status = adminStatus({ UserCount: 1 });
    await queryClient.invalidateQueries();
    await waitFor(() => expect(steps(list).map((step) => step.done)).toEqual([false, true, false, true]));
  });

  it('collapses to one line once all four are done', async () => {
    openHome({ status: DONE, agents: [agentRecord({ Online: true })] });
    const note = await screen.findByRole('status', { name: 'Getting started' }, APP_LOAD);
    expect(note).toHaveTextContent('Postern is set up: licence, a connected agent, a knoc and a user.');
    expect(screen.queryByRole('region', { name: 'Getting started' })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Install your licence' })).not.toBeInTheDocument();
  });

  it('comes back as a list when a done step undoes', async () => {
    const state = { status: DONE, agents: [agentRecord({ Online: true })] };
    const { queryClient } = openHome(state);
    await screen.findByRole('status', { name: 'Getting started' }, APP_LOAD);

    state.agents = [agentRecord({ Online: false })];
    await queryClient.invalidateQueries();
    const list = await checklist();
    expect(steps(list).map((step) => step.done)).toEqual([true, false, true, true]);
  });
});

/** The agent step of firstRunSteps for `agents`. */
function agentStep(agents: AgentRecord[] | undefined) {
  return firstRunSteps(FRESH, agents).find((step) => step.id === 'agent');
}

const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

describe('first-run checklist: where the agent step leads', () => {
  it('opens the create dialog while there is no agent', () => {
    expect(agentStep([])).toEqual({
      id: 'agent',
      done: false,
      to: '/admin/agents?new=1',
      opens: { type: 'createAgent' },
    });
  });

  it('opens the install dialog of the newest agent that never connected, when none is online', () => {
    const agents = [
      agentRecord({ ID: '0190a0b0-0000-7000-8000-000000000001', Name: 'seen', Online: false }),
      newAgentRecord({ ID: '0190a0b0-0000-7000-8000-000000000003', Name: 'newest' }),
      newAgentRecord({ ID: '0190a0b0-0000-7000-8000-000000000002', Name: 'older' }),
    ];
    expect(agentStep(agents)).toEqual({
      id: 'agent',
      done: false,
      to: '/admin/agents?install=0190a0b0-0000-7000-8000-000000000003',
      opens: { type: 'installAgent', name: 'newest' },
    });
  });

  it('opens the install dialog of the agent seen last when every agent has connected once', () => {
    const agents = [
      agentRecord({ ID: '0190a0b0-0000-7000-8000-000000000001', Name: 'recent', LastSeen: ago(5), Online: false }),
      agentRecord({ ID: '0190a0b0-0000-7000-8000-000000000002', Name: 'long-gone', LastSeen: ago(600), Online: false }),
    ];
    expect(agentStep(agents)).toMatchObject({
      to: '/admin/agents?install=0190a0b0-0000-7000-8000-000000000001',
      opens: { type: 'installAgent', name: 'recent' },
    });
  });

  it('is done and leads to the page alone once an agent is online, and before the list has loaded', () => {
    const online = [newAgentRecord(), agentRecord({ Online: true })];
    expect(agentStep(online)).toEqual({ id: 'agent', done: true, to: '/admin/agents' });
    expect(agentStep(undefined)).toEqual({ id: 'agent', done: false, to: '/admin/agents' });
  });
});

describe('first-run checklist: the agent step’s dialog', { timeout: 30_000 }, () => {
  it('says the agent to install beside the link, in English and German', async () => {
    openHome({ status: FRESH, agents: [newAgentRecord()] });
    const list = await checklist();
    const step = await within(list).findByText('To do: install the agent “fresh”');
    expect(step.closest('li')).toHaveAttribute('data-step', 'agent');
    expect(within(list).getByRole('link', { name: 'Connect an agent' })).toHaveAttribute(
      'href',
      `/admin/agents?install=${newAgentRecord().ID}`,
    );
    await i18n.changeLanguage('de');
    expect(await within(list).findByText('Offen: den Agenten „fresh“ installieren')).toBeVisible();
  });

  it('takes the admin from a fresh install straight to the Create agent dialog', async () => {
    const { user } = openHome({ status: FRESH, agents: [] });
    const list = await checklist();
    expect(await within(list).findByText('To do: create an agent')).toBeVisible();
    await user.click(within(list).getByRole('link', { name: 'Connect an agent' }));
    expect(await screen.findByRole('dialog', { name: 'Create agent' }, APP_LOAD)).toBeInTheDocument();
    await waitFor(() => expect(currentPath()).toBe('/admin/agents'));
  });

  it('takes the admin to the install dialog of the agent to connect', async () => {
    const { user } = openHome({ status: FRESH, agents: [agentRecord({ Online: false })] });
    const list = await checklist();
    await within(list).findByText('To do: install the agent “edge-1”');
    await user.click(within(list).getByRole('link', { name: 'Connect an agent' }));
    const dialog = await screen.findByRole('dialog', { name: 'Install agent edge-1' }, APP_LOAD);
    // Opened to view, not just created: no "view it again later" note.
    expect(dialog).not.toHaveTextContent('You can view this token again later');
    await waitFor(() => expect(currentPath()).toBe('/admin/agents'));
  });
});
