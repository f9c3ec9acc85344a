import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderUi } from '@/test-support/render-ui';
import { columnTexts } from '@/test-support/table';
import { DataTable, type DataTableColumn } from './DataTable';

interface Agent {
  id: number;
  name: string;
}
const COLUMNS: DataTableColumn<Agent>[] = [
  { id: 'name', header: 'Name', accessor: (row) => row.name, sortable: true },
  { id: 'id', header: 'ID', accessor: (row) => row.id },
];
const agents = (count: number): Agent[] =>
  Array.from({ length: count }, (_, index) => ({ id: index + 1, name: `agent-${String(index + 1).padStart(3, '0')}` }));

const names = () => columnTexts(screen.getByRole('table', { name: 'Agents' }), 0);

function renderTable(rows: Agent[], search = '') {
  return renderUi(<DataTable label="Agents" columns={COLUMNS} rows={rows} rowKey={(row) => row.id} search={search} />);
}

describe('DataTable', () => {
  it('shows the columns as headers and one row per item', () => {
    renderTable(agents(3));
    expect(screen.getByRole('columnheader', { name: 'Name' })).toBeInTheDocument();
    expect(screen.getByRole('columnheader', { name: 'ID' })).toBeInTheDocument();
    expect(names()).toEqual(['agent-001', 'agent-002', 'agent-003']);
  });

  it('sorts by name and toggles on the second click', async () => {
    const { user } = renderTable([
      { id: 1, name: 'beta' },
      { id: 2, name: 'Alpha' },
      { id: 3, name: 'gamma' },
    ]);
    await user.click(screen.getByRole('button', { name: 'Name' }));
    expect(names()).toEqual(['Alpha', 'beta', 'gamma']);
    expect(screen.getByRole('columnheader', { name: 'Name' })).toHaveAttribute('aria-sort', 'ascending');
    await user.click(screen.getByRole('button', { name: 'Name' }));
    expect(names()).toEqual(['gamma', 'beta', 'Alpha']);
    expect(screen.getByRole('columnheader', { name: 'Name' })).toHaveAttribute('aria-sort', 'descending');
  });

  it('keeps only rows matching the search, ignoring case', () => {
    renderTable(
      [
        { id: 1, name: 'Web-Proxy' },
        { id: 2, name: 'firewall' },
      ],
      'web',
    );
    expect(names()).toEqual(['Web-Proxy']);
  });

  it('says when the search matches nothing', () => {
    renderTable(agents(2), 'zzz');
    expect(screen.getByRole('status')).toHaveTextContent('Nothing matches the search');
  });

  it('says when there is nothing at all', () => {
    renderTable([]);
    expect(screen.getByRole('status')).toHaveTextContent('Nothing to show');
  });

  it('shows 25 rows a page and pages with the pager', async () => {
    const { user } = renderTable(agents(60));
    expect(names()).toHaveLength(25);
    const pager = screen.getByRole('navigation', { name: 'Pages' });
    expect(within(pager).getByRole('button', { name: 'Page 1' })).toHaveAttribute('aria-current', 'page');
    await user.click(within(pager).getByRole('button', { name: 'Page 3' }));
    expect(names()).toEqual(
      agents(60)
        .slice(50)
        .map((agent) => agent.name),
    );
    await user.click(within(pager).getByRole('button', { name: 'Previous page' }));
    expect(names()[0]).toBe('agent-026');
  });

  it('shows every page number up to 8 pages and ellipses above', () => {
    const { unmount } = renderTable(agents(8 * 25));
    expect(within(screen.getByRole('navigation')).getAllByRole('button', { name: /^Page / })).toHaveLength(8);
    unmount();
    renderTable(agents(9 * 25));
    const pager = screen.getByRole('navigation');
    expect(within(pager).getAllByRole('button', { name: /^Page / })).toHaveLength(6);
    expect(pager).toHaveTextContent('…');
  });

  it('has no pager for a single page', () => {
    renderTable(agents(25));
    expect(screen.queryByRole('navigation')).not.toBeInTheDocument();
  });
});
