import { screen, within } from '@testing-library/react';
import { AgentListResponse, type AgentRecord } from '@postern/protocol';
import { bodyRows as tableRows } from '../table';
import { data, type FakeRoute, type TypedHandler } from '../typed-fake-api';
import { openAdminScreen } from './admin';

/**
 * Opens /admin/agents as a signed-in admin with `agents` listed (or another list handler) and
 * further routes, and waits for the table.
 */
export async function openAgentsPage(
  agents: AgentRecord[] | TypedHandler,
  routes: Partial<Record<FakeRoute, TypedHandler>> = {},
) {
  const view = openAdminScreen('/admin/agents', {
    'GET /api/admin/agents': Array.isArray(agents) ? data(AgentListResponse, agents) : agents,
    ...routes,
  });
  // The first render loads the page's lazy chunk, which can take a while on a busy machine.
  const table = await screen.findByRole('table', { name: 'Agents' }, { timeout: 10_000 });
  return { ...view, table };
}

/** The data rows of the agents table (the header row left out). */
export function bodyRows(): HTMLElement[] {
  return tableRows(screen.getByRole('table', { name: 'Agents' }));
}

/** The agent names in the table, in their order. */
export function rowNames(): string[] {
  return bodyRows().map((row) => within(row).getAllByRole('cell')[0]?.textContent ?? '');
}

/** The row of the agent named `name`. */
export function rowOf(name: string): HTMLElement {
  const row = bodyRows().find((candidate) => within(candidate).getAllByRole('cell')[0]?.textContent === name);
  if (row === undefined) throw new Error(`no row for agent ${name}`);
  return row;
}
