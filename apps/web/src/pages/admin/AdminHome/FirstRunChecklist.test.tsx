import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { AdminStatusResponse, AgentListResponse, type AdminStatus, type AgentRecord } from '@postern/protocol';
import { adminStatus, licensingSummary } from '@/test-support/fixtures';
import { agentRecord } from '@/test-support/records/agents';
import { APP_LOAD } from '@/test-support/render-app';
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
    expect(steps(list)).toEqual([
      { name: 'Install your licence', href: '/admin/settings?tab=licence', done: false },
      { name: 'Connect an agent', href: '/admin/agents', done: false },
      { name: 'Create your first knoc', href: '/admin/knocs/new', done: false },
      { name: 'Add your first user', href: '/admin/users', done: false },
    ]);
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
