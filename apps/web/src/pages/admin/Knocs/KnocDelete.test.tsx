import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ApiKeyListResponse } from '@postern/protocol';
import { findMenuItem } from '@/test-support/menu';
import { apiError, data, EMPTY_OK } from '@/test-support/typed-fake-api';
import { apiKey } from '@/test-support/records/api-keys';
import { knocsTable, ONE_SCOPE_KEY, openKnocs } from '@/test-support/screens/knocs';

/** Opens the detail dialog of `name` and chooses Delete in its Actions menu, then confirms. */
async function deleteKnoc(user: ReturnType<typeof openKnocs>['user'], name: string) {
  const table = await knocsTable();
  await user.click(within(table).getByRole('button', { name }));
  const detail = await screen.findByRole('dialog', { name });
  await user.click(within(detail).getByRole('button', { name: `Actions for ${name}` }));
  await user.click(await findMenuItem('Delete'));
  const confirm = await screen.findByRole('dialog', { name: 'Delete knoc' });
  expect(confirm).toHaveTextContent(`Delete knoc "${name}"? Users lose the access it gives them.`);
  await user.click(within(confirm).getByRole('button', { name: 'Delete' }));
}

describe('knocs screen: delete', { timeout: 30_000 }, () => {
  it('deletes an allowlist knoc, then offers to delete its one-scope key, and deletes it', async () => {
    const { api, user } = openKnocs({
      'DELETE /api/admin/knocs/:id': EMPTY_OK,
      'DELETE /api/admin/api-keys/:id': EMPTY_OK,
    });
    await deleteKnoc(user, 'Office allowlist');
    expect(await screen.findByText('Knoc deleted')).toBeVisible();
    expect(api.calls('DELETE /api/admin/knocs/:id')[0]?.params).toEqual({ id: 'k-allow' });
    const offer = await screen.findByRole('dialog', { name: 'Delete the API key too?' });
    expect(offer).toHaveTextContent('The API key "firewall poller" read only this allowlist.');
    await user.click(within(offer).getByRole('button', { name: 'Delete key' }));
    expect(await screen.findByText('API key deleted')).toBeVisible();
    expect(api.calls('DELETE /api/admin/api-keys/:id')[0]?.params).toEqual({ id: ONE_SCOPE_KEY.ID });
  });

  it('keeps the key when the admin declines', async () => {
    const { api, user } = openKnocs({ 'DELETE /api/admin/knocs/:id': EMPTY_OK });
    await deleteKnoc(user, 'Office allowlist');
    const offer = await screen.findByRole('dialog', { name: 'Delete the API key too?' });
    await user.click(within(offer).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(api.calls('DELETE /api/admin/api-keys/:id')).toHaveLength(0);
  });

  it('does not offer to delete a key that reads other allowlists too', async () => {
    const { user } = openKnocs({
      'DELETE /api/admin/knocs/:id': EMPTY_OK,
      'GET /api/admin/api-keys': data(ApiKeyListResponse, [
        apiKey({ ID: 'key-1', Scopes: ['allowlist.read:k-allow', 'allowlist.read:k-other'] }),
      ]),
    });
    await deleteKnoc(user, 'Office allowlist');
    expect(await screen.findByText('Knoc deleted')).toBeVisible();
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(screen.queryByRole('dialog', { name: 'Delete the API key too?' })).not.toBeInTheDocument();
  });

  it('deletes nothing on Cancel', async () => {
    const { api, user } = openKnocs({ 'DELETE /api/admin/knocs/:id': EMPTY_OK });
    const table = await knocsTable();
    await user.click(within(table).getByRole('button', { name: 'Router' }));
    const detail = await screen.findByRole('dialog', { name: 'Router' });
    await user.click(within(detail).getByRole('button', { name: 'Actions for Router' }));
    await user.click(await findMenuItem('Delete'));
    const confirm = await screen.findByRole('dialog', { name: 'Delete knoc' });
    await user.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(api.calls('DELETE /api/admin/knocs/:id')).toHaveLength(0);
  });

  it('shows a refused delete in the Error dialog and still refreshes the knocs and the API keys', async () => {
    const { api, user } = openKnocs({ 'DELETE /api/admin/knocs/:id': apiError(404, 'err.notFound', 'knoc') });
    await knocsTable();
    await waitFor(() => expect(api.calls('GET /api/admin/api-keys')).toHaveLength(1));
    await deleteKnoc(user, 'Office allowlist');
    const error = await screen.findByRole('dialog', { name: 'Error' });
    expect(within(error).getByRole('alert')).toHaveTextContent('Not found: knoc');
    expect(screen.queryByText('Knoc deleted')).not.toBeInTheDocument();
    await waitFor(() => expect(api.calls('GET /api/admin/knocs')).toHaveLength(2));
    await waitFor(() => expect(api.calls('GET /api/admin/api-keys')).toHaveLength(2));
    expect(screen.queryByRole('dialog', { name: 'Delete the API key too?' })).not.toBeInTheDocument();
  });
});
