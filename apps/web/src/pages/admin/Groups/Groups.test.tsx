import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { apiError, EMPTY_OK } from '@/test-support/typed-fake-api';
import { columnTexts } from '@/test-support/table';
import { groupsTable, openGroups } from '@/test-support/screens/groups';

// Whole-app renders are slow on a busy machine; these are behaviour tests, not timing tests.
describe('groups screen: table', { timeout: 30_000 }, () => {
  it('lists Name, Type, Description, Knocs and Users counts, sorted by name', async () => {
    openGroups();
    const table = await groupsTable();
    const headers = within(table)
      .getAllByRole('columnheader')
      .map((header) => header.textContent);
    expect(headers).toEqual(['Name', 'Type', 'Description', 'Knocs', 'Users', 'Actions']);
    expect(columnTexts(table, 0)).toEqual(['contractors', 'Engineering', 'Operations']);
    expect(columnTexts(table, 1)).toEqual(['Dynamic', 'SAML', 'Local']);
    expect(columnTexts(table, 2)).toEqual(['', 'From the IdP', 'On-call staff']);
    expect(columnTexts(table, 3)).toEqual(['1', '0', '2']);
    expect(columnTexts(table, 4)).toEqual(['0', '3', '1']);
  });

  it('sorts by users count as numbers and reverses on the second click', async () => {
    const { user } = openGroups();
    const table = await groupsTable();
    await user.click(within(table).getByRole('button', { name: 'Users' }));
    expect(columnTexts(table, 0)).toEqual(['contractors', 'Operations', 'Engineering']);
    await user.click(within(table).getByRole('button', { name: 'Users' }));
    expect(columnTexts(table, 0)).toEqual(['Engineering', 'Operations', 'contractors']);
  });

  it('searches names, types and descriptions, ignoring case', async () => {
    const { user } = openGroups();
    const table = await groupsTable();
    const search = screen.getByRole('textbox', { name: 'Search' });
    await user.type(search, 'on-CALL');
    expect(columnTexts(table, 0)).toEqual(['Operations']);
    await user.clear(search);
    await user.type(search, 'saml');
    expect(columnTexts(table, 0)).toEqual(['Engineering']);
    await user.type(search, 'zzz');
    expect(screen.getByRole('status')).toHaveTextContent('Nothing matches the search');
  });

  it('shows a failed load as an error', async () => {
    openGroups({ 'GET /api/admin/groups': apiError(403, 'err.unauthorised') });
    expect(await screen.findByText('Unauthorised', {}, { timeout: 5000 })).toBeVisible();
  });
});

describe('groups screen: delete', { timeout: 30_000 }, () => {
  it('deletes nothing on Cancel', async () => {
    const { api, user } = openGroups({ 'DELETE /api/admin/groups/:id': EMPTY_OK });
    await groupsTable();
    await user.click(screen.getByRole('button', { name: 'Delete Operations' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete group' });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(api.calls('DELETE /api/admin/groups/:id')).toHaveLength(0);
  });

  it('asks before deleting, deletes, says so and refreshes', async () => {
    const { api, user } = openGroups({ 'DELETE /api/admin/groups/:id': EMPTY_OK });
    await groupsTable();
    await user.click(screen.getByRole('button', { name: 'Delete Operations' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete group' });
    expect(dialog).toHaveTextContent('Delete group "Operations"? Its members lose the knocs it gives them.');
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('Group deleted')).toBeVisible();
    expect(api.calls('DELETE /api/admin/groups/:id')[0]?.params).toEqual({ id: 'g-ops' });
    await waitFor(() => expect(api.calls('GET /api/admin/groups')).toHaveLength(2));
  });

  it('shows a refused delete in the Error dialog and refreshes the list', async () => {
    const { api, user } = openGroups({ 'DELETE /api/admin/groups/:id': apiError(404, 'err.notFound', 'group') });
    await groupsTable();
    await user.click(screen.getByRole('button', { name: 'Delete Operations' }));
    await user.click(
      within(await screen.findByRole('dialog', { name: 'Delete group' })).getByRole('button', { name: 'Delete' }),
    );
    const error = await screen.findByRole('dialog', { name: 'Error' });
    expect(within(error).getByRole('alert')).toHaveTextContent('Not found: group');
    expect(screen.queryByText('Group deleted')).not.toBeInTheDocument();
    await waitFor(() => expect(api.calls('GET /api/admin/groups')).toHaveLength(2));
  });
});
