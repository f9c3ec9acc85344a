import { configure, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import {
  ApiKeyCreateResponse,
  ApiKeyListResponse,
  ApiKeyResponse,
  ErrorCodes,
  KnocListResponse,
  UserListResponse,
  type ApiKeyRecord,
} from '@postern/protocol';
import { signInAdmin } from '@/test-support/fixtures';
import { renderApp } from '@/test-support/render-app';
import { bodyRows } from '@/test-support/table';
import { apiError, data, EMPTY_OK, installTypedFakeApi, type TypedHandler } from '@/test-support/typed-fake-api';
import { apiKey, apiKeyAllowlist, apiKeyUser } from '@/test-support/records/api-keys';

// The whole app renders behind the fake API, and each dialog test clicks through many fields.
configure({ asyncUtilTimeout: 5_000 });
vi.setConfig({ testTimeout: 20_000 });

const PLAINTEXT = 'pst_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

function openScreen(keys: ApiKeyRecord[], routes: Record<string, TypedHandler> = {}) {
  const api = installTypedFakeApi({
    'GET /api/admin/api-keys': data(ApiKeyListResponse, keys),
    'GET /api/admin/knocs': data(KnocListResponse, [
      apiKeyAllowlist(),
      apiKeyAllowlist({ ID: 'acl-2', Name: 'Partner allowlist' }),
      apiKeyAllowlist({ ID: 'acl-3', Name: 'Web proxy', BackendType: 'haproxy' }),
    ]),
    'GET /api/admin/users': data(UserListResponse, [
      apiKeyUser(),
      apiKeyUser({ ID: 'user-2', Name: 'Ada', AuthType: 'local' }),
    ]),
    ...routes,
  });
  signInAdmin();
  return { api, ...renderApp('/admin/api-keys') };
}

const table = () => screen.findByRole('table', { name: 'API keys' });

describe('API keys screen', () => {
  it('shows the spec’s columns with what each key allows, its age, expiry, use and addresses', async () => {
    openScreen([
      apiKey(),
      apiKey({
        ID: 'key-2',
        Name: 'robot-login',
        Scopes: ['user.auth:user-1'],
        ExpiredAfter: new Date(Date.now() - 86_400_000).toISOString(),
        LastUsedAt: new Date(Date.now() - 5 * 60_000).toISOString(),
        AllowedFrom: [{ Prefix: '192.0.2.0/24', Note: 'Build hosts' }],
      }),
    ]);
    const keys = await table();
    const headers = within(keys)
      .getAllByRole('columnheader')
      .map((cell) => cell.textContent);
    expect(headers).toEqual(['Name', 'Allows access to', 'Age', 'Expires', 'Last used', 'Allowed from', 'Actions']);
    const [first, second] = bodyRows(keys);
    expect(first).toHaveTextContent('ci-pipeline');
    expect(await within(first!).findByText('Allowlist: Office allowlist')).toBeInTheDocument();
    expect(first).toHaveTextContent('3 months');
    expect(first).toHaveTextContent(/Never.*Never/);
    expect(first).toHaveTextContent('0.0.0.0/0');
    expect(first).toHaveTextContent('::/0');
    expect(second).toHaveTextContent('Acts as user: Robot');
    expect(second).toHaveTextContent('Expired');
    expect(second).toHaveTextContent('5 minutes ago');
    expect(second).toHaveTextContent('192.0.2.0/24');
  });

  it('sorts by name and reverses on the second click', async () => {
    const { user: clicker } = openScreen([apiKey({ ID: 'b', Name: 'beta' }), apiKey({ ID: 'a', Name: 'alpha' })]);
    const keys = await table();
    const names = () => bodyRows(keys).map((row) => within(row).getAllByRole('cell')[0]?.textContent);
    expect(names()).toEqual(['beta', 'alpha']);
    await clicker.click(within(keys).getByRole('button', { name: 'Name' }));
    expect(names()).toEqual(['alpha', 'beta']);
    await clicker.click(within(keys).getByRole('button', { name: 'Name' }));
    expect(names()).toEqual(['beta', 'alpha']);
  });

  it('searches the keys', async () => {
    const { user: typist } = openScreen([apiKey({ ID: 'b', Name: 'beta' }), apiKey({ ID: 'a', Name: 'alpha' })]);
    const keys = await table();
    await typist.type(screen.getByRole('textbox', { name: 'Search API keys' }), 'ALP');
    expect(bodyRows(keys)).toHaveLength(1);
    expect(bodyRows(keys)[0]).toHaveTextContent('alpha');
  });

  it('validates the create dialog before sending anything', async () => {
    const { api, user: clicker } = openScreen([apiKey({ Name: 'taken' })]);
    await clicker.click(await screen.findByRole('button', { name: 'Create API key' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create API key' });
    expect(within(dialog).getByRole('textbox', { name: 'Address range 1' })).toHaveValue('0.0.0.0/0');
    expect(within(dialog).getByRole('textbox', { name: 'Address range 2' })).toHaveValue('::/0');
    await clicker.type(within(dialog).getByRole('textbox', { name: 'Address range 2' }), 'x');
    await clicker.type(within(dialog).getByRole('textbox', { name: /^Name/ }), 'taken');
    await clicker.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(await within(dialog).findByText('An API key with that name already exists')).toBeVisible();
    expect(within(dialog).getByText('Choose at least one allowlist')).toBeVisible();
    expect(
      within(dialog).getByText('Choose when the key expires', { selector: '.mantine-InputWrapper-error' }),
    ).toBeVisible();
    expect(within(dialog).getByText('Enter an address range in CIDR notation, such as 192.0.2.0/24')).toBeVisible();
    await clicker.clear(within(dialog).getByRole('textbox', { name: 'Note 1' }));
    await clicker.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(await within(dialog).findByText('Note is required')).toBeVisible();
    expect(api.calls('POST /api/admin/api-keys')).toHaveLength(0);
  });

  it('creates a key for chosen allowlists, then shows its plaintext once', async () => {
    const created = apiKey({ ID: 'key-9', Name: 'new-key', Scopes: ['allowlist.read:acl-2'] });
    const { api, user: clicker } = openScreen([], {
      'POST /api/admin/api-keys': data(ApiKeyCreateResponse, { ...created, PlaintextKey: PLAINTEXT }),
    });
    expect(await screen.findByText('No API keys yet')).toBeInTheDocument();
    await clicker.click(screen.getByRole('button', { name: 'Create API key' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create API key' });
    expect(within(dialog).queryByRole('checkbox', { name: 'Web proxy' })).not.toBeInTheDocument();
    await clicker.type(within(dialog).getByRole('textbox', { name: /^Name/ }), ' new-key ');
    await clicker.click(await within(dialog).findByRole('checkbox', { name: 'Partner allowlist' }));
    await clicker.selectOptions(within(dialog).getByRole('combobox', { name: /Expires after/ }), '12 months');
    await clicker.click(within(dialog).getByRole('button', { name: 'Remove address range 2' }));
    await clicker.clear(within(dialog).getByRole('textbox', { name: 'Address range 1' }));
    await clicker.type(within(dialog).getByRole('textbox', { name: 'Address range 1' }), '198.51.100.0/24');
    await clicker.click(within(dialog).getByRole('button', { name: 'Create' }));

    const reveal = await screen.findByRole('dialog', { name: 'New API key: new-key' });
    expect(reveal).toHaveTextContent(PLAINTEXT);
    expect(screen.getByText('API key created')).toBeInTheDocument();
    const [request] = api.calls('POST /api/admin/api-keys');
    const body = request?.body as Record<string, unknown>;
    expect(body).toMatchObject({
      Name: 'new-key',
      Scopes: ['allowlist.read:acl-2'],
      AllowedFrom: [{ Prefix: '198.51.100.0/24', Note: 'Anywhere (IPv4)' }],
    });
    const months = (Date.parse(String(body.ExpiredAfter)) - Date.now()) / (30.44 * 86_400_000);
    expect(Math.round(months)).toBe(12);
    await waitFor(() => expect(api.calls('GET /api/admin/api-keys').length).toBeGreaterThan(1));
    await clicker.click(within(reveal).getAllByRole('button', { name: 'Close' }).at(-1)!);
    await waitFor(() => expect(screen.queryByText(PLAINTEXT)).not.toBeInTheDocument());
  });

  it('creates a never-expiring key for an API-key user without sending an expiry', async () => {
    const { api, user: clicker } = openScreen([], {
      'POST /api/admin/api-keys': data(ApiKeyCreateResponse, { ...apiKey(), PlaintextKey: PLAINTEXT }),
    });
    await clicker.click(await screen.findByRole('button', { name: 'Create API key' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create API key' });
    await clicker.type(within(dialog).getByRole('textbox', { name: /^Name/ }), 'robot');
    await clicker.selectOptions(within(dialog).getByRole('combobox', { name: 'Purpose' }), 'Sign in as a user');
    await clicker.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(await within(dialog).findByText('Choose a user')).toBeVisible();
    const users = within(dialog).getByRole('combobox', { name: 'User' });
    expect(within(users).queryByRole('option', { name: /Ada/ })).not.toBeInTheDocument();
    await clicker.selectOptions(users, 'Robot (robot)');
    await clicker.selectOptions(within(dialog).getByRole('combobox', { name: /Expires after/ }), 'Never');
    await clicker.click(within(dialog).getByRole('button', { name: 'Create' }));
    await screen.findByRole('dialog', { name: /New API key/ });
    expect(api.calls('POST /api/admin/api-keys')[0]?.body).toEqual({
      Name: 'robot',
      Scopes: ['user.auth:user-1'],
      AllowedFrom: [
        { Prefix: '0.0.0.0/0', Note: 'Anywhere (IPv4)' },
        { Prefix: '::/0', Note: 'Anywhere (IPv6)' },
      ],
    });
  });

  it('shows a refusal of the server in the dialog and keeps it open', async () => {
    const { user: clicker } = openScreen([], {
      'POST /api/admin/api-keys': apiError(400, ErrorCodes.invalidScope, 'allowlist.read:acl-1'),
    });
    await clicker.click(await screen.findByRole('button', { name: 'Create API key' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create API key' });
    await clicker.type(within(dialog).getByRole('textbox', { name: /^Name/ }), 'k');
    await clicker.click(await within(dialog).findByRole('checkbox', { name: 'Office allowlist' }));
    await clicker.selectOptions(within(dialog).getByRole('combobox', { name: /Expires after/ }), '24 months');
    await clicker.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('This scope is not valid: allowlist.read:acl-1');
    expect(screen.queryByRole('dialog', { name: /New API key/ })).not.toBeInTheDocument();
  });

  it('says an allowlist must exist before an allowlists key can be made', async () => {
    const { user: clicker } = openScreen([], { 'GET /api/admin/knocs': data(KnocListResponse, []) });
    await clicker.click(await screen.findByRole('button', { name: 'Create API key' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create API key' });
    expect(
      await within(dialog).findByText('You must create an allowlist before you can create an API key'),
    ).toBeVisible();
  });

  it('edits only the allowed-from entries and sends just those', async () => {
    const key = apiKey({ ExpiredAfter: '2030-01-01T00:00:00.000Z' });
    const { api, user: clicker } = openScreen([key], {
      'PUT /api/admin/api-keys/:id': data(ApiKeyResponse, key),
    });
    await table();
    await clicker.click(screen.getByRole('button', { name: 'Edit API key ci-pipeline' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit API key' });
    expect(within(dialog).getByRole('textbox', { name: 'Name' })).toBeDisabled();
    expect(within(dialog).getByRole('textbox', { name: 'Name' })).toHaveValue('ci-pipeline');
    expect(within(dialog).getByRole('combobox', { name: 'Purpose' })).toBeDisabled();
    expect(within(dialog).getByRole('combobox', { name: 'Purpose' })).toHaveValue('allowlists');
    expect(await within(dialog).findByRole('checkbox', { name: 'Office allowlist' })).toBeChecked();
    expect(within(dialog).getByRole('checkbox', { name: 'Office allowlist' })).toBeDisabled();
    expect(within(dialog).getByRole('textbox', { name: 'Expires' })).toBeDisabled();
    await clicker.click(within(dialog).getByRole('button', { name: 'Add address range' }));
    await clicker.type(within(dialog).getByRole('textbox', { name: 'Address range 3' }), '2001:db8::/32');
    await clicker.type(within(dialog).getByRole('textbox', { name: 'Note 3' }), 'Lab');
    await clicker.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('API Key updated')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Edit API key' })).not.toBeInTheDocument());
    expect(api.calls('PUT /api/admin/api-keys/:id')[0]?.params.id).toBe('key-1');
    expect(api.calls('PUT /api/admin/api-keys/:id')[0]?.body).toEqual({
      ID: 'key-1',
      AllowedFrom: [...key.AllowedFrom, { Prefix: '2001:db8::/32', Note: 'Lab' }],
    });
  });

  it('asks before deleting and deletes after the confirmation', async () => {
    const { api, user: clicker } = openScreen([apiKey()], { 'DELETE /api/admin/api-keys/:id': EMPTY_OK });
    await table();
    await clicker.click(screen.getByRole('button', { name: 'Delete API key ci-pipeline' }));
    let confirm = await screen.findByRole('dialog', { name: 'Delete API key' });
    expect(confirm).toHaveTextContent('Delete the API key "ci-pipeline"?');
    await clicker.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(api.calls('DELETE /api/admin/api-keys/:id')).toHaveLength(0);

    await clicker.click(screen.getByRole('button', { name: 'Delete API key ci-pipeline' }));
    confirm = await screen.findByRole('dialog', { name: 'Delete API key' });
    await clicker.click(within(confirm).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('API key deleted')).toBeInTheDocument();
    expect(api.calls('DELETE /api/admin/api-keys/:id')[0]?.params.id).toBe('key-1');
  });

  it('shows a refused delete in the Error dialog and refreshes the list', async () => {
    const { api, user: clicker } = openScreen([apiKey()], {
      'DELETE /api/admin/api-keys/:id': apiError(404, ErrorCodes.notFound, 'API key'),
    });
    await table();
    await clicker.click(screen.getByRole('button', { name: 'Delete API key ci-pipeline' }));
    await clicker.click(
      within(await screen.findByRole('dialog', { name: 'Delete API key' })).getByRole('button', { name: 'Delete' }),
    );
    const error = await screen.findByRole('dialog', { name: 'Error' });
    expect(within(error).getByRole('alert')).toHaveTextContent(/API key/);
    await waitFor(() => expect(api.calls('GET /api/admin/api-keys').length).toBeGreaterThan(1));
  });

  it('shows a failed list in an error alert', async () => {
    openScreen([], { 'GET /api/admin/api-keys': apiError(500, ErrorCodes.internalServerError) });
    expect(await screen.findByText('Internal server error')).toBeInTheDocument();
    expect(screen.queryByRole('table', { name: 'API keys' })).not.toBeInTheDocument();
  });
});
