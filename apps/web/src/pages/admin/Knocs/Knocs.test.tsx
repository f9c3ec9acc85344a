import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { columnTexts } from '@/test-support/table';
import { currentPath } from '@/test-support/render-app';
import { KnocResponse } from '@postern/protocol';
import { scriptKnoc } from '@/test-support/records/knocs';
import { apiError, data } from '@/test-support/typed-fake-api';
import { knocsTable, openKnocs } from '@/test-support/screens/knocs';

// Whole-app renders are slow on a busy machine; these are behaviour tests, not timing tests.
describe('knocs screen: table', { timeout: 30_000 }, () => {
  it('lists Name, Details, Users, Groups, Agent and Last modified, without knocs hidden from admins', async () => {
    openKnocs();
    const table = await knocsTable();
    const headers = within(table)
      .getAllByRole('columnheader')
      .map((header) => header.textContent);
    expect(headers).toEqual(['Name', 'Details', 'Users', 'Groups', 'Agent', 'Last modified']);
    expect(columnTexts(table, 0)).toEqual(['Billing database', 'Intranet', 'Office allowlist', 'Router']);
    expect(columnTexts(table, 1)).toEqual([
      'ipset billing4, billing6',
      'HAProxy ACL #7',
      'Allowlist',
      'Script mikrotik.sh',
    ]);
    expect(columnTexts(table, 2)).toEqual(['3', '5', '1', '0']);
    // An allowlist has no agent: the cell says why instead of staying blank.
    expect(columnTexts(table, 4)).toEqual(['edge', 'proxy-agent', '— (published allowlist)', 'edge']);
    expect(columnTexts(table, 5)[0]).toBe('2 days ago by grace');
    expect(screen.queryByText('Hidden child')).not.toBeInTheDocument();
  });

  it.each([
    ['Users', ['Router', 'Office allowlist', 'Billing database', 'Intranet']],
    ['Agent', ['Billing database', 'Router', 'Intranet', 'Office allowlist']],
    ['Last modified', ['Router', 'Office allowlist', 'Billing database', 'Intranet']],
  ])('sorts by %s ascending, then descending on the second click', async (column, ascending) => {
    const { user } = openKnocs();
    const table = await knocsTable();
    await user.click(within(table).getByRole('button', { name: column }));
    expect(columnTexts(table, 0)).toEqual(ascending);
    await user.click(within(table).getByRole('button', { name: column }));
    const descending =
      column === 'Agent' ? ['Intranet', 'Billing database', 'Router', 'Office allowlist'] : [...ascending].reverse();
    expect(columnTexts(table, 0)).toEqual(descending);
  });

  it('reverses the name sort on a click on Name', async () => {
    const { user } = openKnocs();
    const table = await knocsTable();
    await user.click(within(table).getByRole('button', { name: 'Name' }));
    expect(columnTexts(table, 0)).toEqual(['Router', 'Office allowlist', 'Intranet', 'Billing database']);
  });

  it('searches names only, ignoring case', async () => {
    const { user } = openKnocs();
    const table = await knocsTable();
    const search = screen.getByRole('textbox', { name: 'Search' });
    await user.type(search, 'OFFICE');
    expect(columnTexts(table, 0)).toEqual(['Office allowlist']);
    await user.clear(search);
    // "edge" is an agent name, not a knoc name.
    await user.type(search, 'edge');
    expect(screen.getByRole('status')).toHaveTextContent('Nothing matches the search');
  });

  it('goes to the type chooser from Create knoc', async () => {
    const { user } = openKnocs();
    await knocsTable();
    await user.click(screen.getByRole('link', { name: 'Create knoc' }));
    await waitFor(() => expect(currentPath()).toBe('/admin/knocs/new'));
  });

  it('shows a failed load as an error', async () => {
    openKnocs({ 'GET /api/admin/knocs': apiError(403, 'err.unauthorised') });
    expect(await screen.findByText('Unauthorised', {}, { timeout: 5000 })).toBeVisible();
  });
});

describe('knocs screen: query', { timeout: 30_000 }, () => {
  it('says "Knoc updated successfully" on didUpdate and clears the query', async () => {
    openKnocs({}, undefined, '/admin/knocs?didUpdate=true');
    const entries = window.history.length;
    expect(await screen.findByText('Knoc updated successfully', {}, { timeout: 5000 })).toBeVisible();
    await waitFor(() => expect(currentPath()).toBe('/admin/knocs'));
    // Replaced, not pushed: Back does not return to the query.
    expect(window.history.length).toBe(entries);
  });

  it('opens the knoc of viewKnocId in its detail dialog and clears the query', async () => {
    openKnocs({}, undefined, '/admin/knocs?viewKnocId=k-haproxy');
    const dialog = await screen.findByRole('dialog', { name: 'Intranet' }, { timeout: 5000 });
    expect(dialog).toHaveTextContent("echo 'show acl #7' | socat stdio /var/run/haproxy.sock");
    await waitFor(() => expect(currentPath()).toBe('/admin/knocs'));
  });

  it('fetches the knoc of viewKnocId when the list does not hold it', async () => {
    const { api } = openKnocs(
      { 'GET /api/admin/knocs/:id': data(KnocResponse, scriptKnoc({ ID: 'k-elsewhere', Name: 'Elsewhere' })) },
      undefined,
      '/admin/knocs?viewKnocId=k-elsewhere',
    );
    expect(await screen.findByRole('dialog', { name: 'Elsewhere' }, { timeout: 5000 })).toBeVisible();
    expect(api.calls('GET /api/admin/knocs/:id')[0]?.params).toEqual({ id: 'k-elsewhere' });
  });
});
