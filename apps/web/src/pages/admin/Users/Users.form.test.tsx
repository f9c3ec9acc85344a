import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { ErrorCodes, UserCreateResponse, UserResponse, type UserRecord } from '@postern/protocol';
import { licensingSummary } from '@/test-support/fixtures';
import { findMenuItem } from '@/test-support/menu';
import { apiError, data } from '@/test-support/typed-fake-api';
import { findUsersTable, openUsersPage } from '@/test-support/screens/users';
import { listedUser } from '@/test-support/records/users';

// Whole-app tests with dialogs take a few seconds each.
vi.setConfig({ testTimeout: 20_000 });

type Page = ReturnType<typeof openUsersPage>;

async function openCreate({ user }: Page) {
  await findUsersTable();
  await user.click(await screen.findByRole('button', { name: 'Create user' }));
  return screen.findByRole('dialog', { name: 'Create user' }, { timeout: 3_000 });
}

async function openEdit({ user }: Page, name: string) {
  const table = await findUsersTable();
  await user.click(within(table).getByRole('button', { name: `Actions for ${name}` }));
  await user.click(await findMenuItem('Edit', { timeout: 8_000 }));
  return screen.findByRole('dialog', { name: `Edit user "${name}"` });
}

/** A field by its label, whether or not the label carries the required asterisk. */
const field = (dialog: HTMLElement, label: string) =>
  within(dialog).getByLabelText((content) => content.replace(/\s*\*$/, '') === label, { selector: 'input' });

async function fill(page: Page, dialog: HTMLElement, values: Record<string, string>) {
  for (const [label, value] of Object.entries(values)) {
    await page.user.clear(field(dialog, label));
    // Pasted rather than typed: one change per field keeps the tests quick.
    if (value !== '') await page.user.paste(value);
  }
}

const created = (overrides: Partial<UserRecord> = {}) =>
  data(UserCreateResponse, { User: listedUser({ ID: 'u-new', ...overrides }), PlaintextKey: null });

describe('create user', () => {
  it('derives the username from the name, sends the spec’s fields and says so', async () => {
    const page = openUsersPage({ 'POST /api/admin/users': created({ Name: 'Alan Turing' }) });
    const dialog = await openCreate(page);
    expect(field(dialog, 'Session duration (minutes)')).toHaveValue('480');
    expect(field(dialog, 'Session limit')).toHaveValue('3');
    await fill(page, dialog, { Name: 'Alan Turing', Company: 'Bletchley', Password: 'enigma-2-long' });
    await fill(page, dialog, { 'Confirm password': 'enigma-2-long' });
    expect(field(dialog, 'Username')).toHaveValue('alan.turing');
    await page.user.click(within(dialog).getByRole('checkbox', { name: /two-factor/ }));
    await page.user.click(within(dialog).getByRole('button', { name: 'Create' }));

    expect(await screen.findByText('User created')).toBeVisible();
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Create user' })).not.toBeInTheDocument());
    expect(page.api.calls('POST /api/admin/users')[0]?.body).toEqual({
      Name: 'Alan Turing',
      UserName: 'alan.turing',
      Company: 'Bletchley',
      Duration: 480,
      SessionLimit: 3,
      AuthType: 'local',
      PlainPassword: 'enigma-2-long',
      ConfirmPassword: 'enigma-2-long',
      TOTPEnabled: true,
      ValidUntil: null,
      ThirdPartyAuth: null,
      Disabled: false,
    });
    await waitFor(() => expect(page.api.calls('GET /api/admin/users')).toHaveLength(2));
  });

  it('stops following the name once the username is edited', async () => {
    const page = openUsersPage();
    const dialog = await openCreate(page);
    await fill(page, dialog, { Name: 'Alan' });
    await fill(page, dialog, { Username: 'turing' });
    await fill(page, dialog, { Name: 'Alan Turing' });
    expect(field(dialog, 'Username')).toHaveValue('turing');
  });

  it('shows every broken rule and sends nothing', async () => {
    const page = openUsersPage();
    const dialog = await openCreate(page);
    await fill(page, dialog, { 'Session duration (minutes)': '', 'Session limit': '', Password: 'short' });
    await fill(page, dialog, { 'Confirm password': 'shorter' });
    await page.user.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(await within(dialog).findByText('You must specify a name')).toBeVisible();
    expect(within(dialog).getByText('You must specify a username')).toBeVisible();
    expect(within(dialog).getByText('Enter the session duration in minutes')).toBeVisible();
    expect(within(dialog).getByText('Enter a whole number from 1 to the licence’s session limit')).toBeVisible();
    expect(within(dialog).getByText('Must be between 8 and 64 characters')).toBeVisible();
    expect(within(dialog).getByText("Passwords don't match")).toBeVisible();
    expect(page.api.calls('POST /api/admin/users')).toHaveLength(0);
  });

  it('asks an LDAP user for a DN and offers no password', async () => {
    const page = openUsersPage({ 'POST /api/admin/users': created({ AuthType: 'LDAP' }) });
    const dialog = await openCreate(page);
    await fill(page, dialog, { Name: 'Grace' });
    await page.user.click(within(dialog).getByRole('radio', { name: 'LDAP' }));
    expect(within(dialog).queryByLabelText('Password', { exact: false })).not.toBeInTheDocument();
    await page.user.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(await within(dialog).findByText('An LDAP user needs a distinguished name (DN)')).toBeVisible();
    await fill(page, dialog, { 'Distinguished name (DN)': 'cn=grace,dc=navy' });
    await page.user.click(within(dialog).getByRole('button', { name: 'Create' }));
    await screen.findByText('User created');
    expect(page.api.calls('POST /api/admin/users')[0]?.body).toMatchObject({
      AuthType: 'LDAP',
      ThirdPartyAuth: { DN: 'cn=grace,dc=navy' },
    });
  });

  it('warns about SAML users and offers no TOTP for them', async () => {
    const page = openUsersPage();
    const dialog = await openCreate(page);
    await page.user.click(within(dialog).getByRole('radio', { name: 'SAML' }));
    expect(within(dialog).getByText(/SAML users are normally created by their first single sign-on/)).toBeVisible();
    expect(within(dialog).queryByRole('checkbox', { name: /two-factor/ })).not.toBeInTheDocument();
  });

  it('creates an apikey user with a key and shows the key once', async () => {
    const page = openUsersPage({
      'POST /api/admin/users': data(UserCreateResponse, {
        User: listedUser({ ID: 'u-ci', Name: 'CI robot', AuthType: 'apikey' }),
        PlaintextKey: 'pk_live_once',
      }),
    });
    const dialog = await openCreate(page);
    await fill(page, dialog, { Name: 'CI robot' });
    await page.user.click(within(dialog).getByRole('radio', { name: 'API key' }));
    await page.user.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(await within(dialog).findByText('You must specify a key name')).toBeVisible();
    expect(within(dialog).getByText('Choose when the key expires')).toBeVisible();
    await fill(page, dialog, { 'Key name': 'ci-deploy' });
    await page.user.click(within(dialog).getByRole('radio', { name: 'In 24 months' }));
    await page.user.click(within(dialog).getByRole('button', { name: 'Create' }));

    const reveal = await screen.findByRole('dialog', { name: 'API key of CI robot' });
    expect(reveal).toHaveTextContent('pk_live_once');
    const body = page.api.calls('POST /api/admin/users')[0]?.body as { ApiKey: { Name: string; ExpiredAfter: string } };
    expect(body).toMatchObject({ AuthType: 'apikey', UserName: 'ci.robot', TOTPEnabled: false });
    expect(body).not.toHaveProperty('PlainPassword');
    expect(body.ApiKey.Name).toBe('ci-deploy');
    const years = (Date.parse(body.ApiKey.ExpiredAfter) - Date.now()) / (365.25 * 86_400_000);
    expect(years).toBeGreaterThan(1.9);
    expect(years).toBeLessThan(2.1);
    await page.user.click(within(reveal).getAllByRole('button', { name: 'Close' }).at(-1)!);
    await waitFor(() => expect(screen.queryByText('pk_live_once')).not.toBeInTheDocument());
  });

  it('puts a refusal naming a field on that field', async () => {
    const page = openUsersPage({ 'POST /api/admin/users': apiError(409, ErrorCodes.userNameExists, 'UserName') });
    const dialog = await openCreate(page);
    await fill(page, dialog, { Name: 'Ada Lovelace', Password: 'long-enough', 'Confirm password': 'long-enough' });
    await page.user.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(await within(dialog).findByText('A user with that username already exists')).toBeVisible();
    expect(field(dialog, 'Username')).toHaveAttribute('aria-invalid', 'true');
  });

  it('shows any other refusal in the Error dialog and keeps the form', async () => {
    const page = openUsersPage({
      'POST /api/admin/users': apiError(403, ErrorCodes.userLimitReached, '50% over 10 users'),
    });
    const dialog = await openCreate(page);
    await fill(page, dialog, { Name: 'Ada Lovelace', Password: 'long-enough', 'Confirm password': 'long-enough' });
    await page.user.click(within(dialog).getByRole('button', { name: 'Create' }));
    const error = await screen.findByRole('dialog', { name: 'Error' });
    expect(error).toHaveTextContent('The licence’s user limit has been reached: 50% over 10 users');
    await page.user.click(within(error).getAllByRole('button', { name: 'Close' }).at(-1)!);
    expect(field(screen.getByRole('dialog', { name: 'Create user' }), 'Name')).toHaveValue('Ada Lovelace');
  });

  it('leaves the session limit open when unlicensed', async () => {
    const page = openUsersPage({}, licensingSummary({ Licensed: false, SessionLimit: 0 }));
    const dialog = await openCreate(page);
    expect(field(dialog, 'Session limit')).toHaveValue('');
    expect(within(dialog).getByText('Concurrent sessions; leave empty for no limit.')).toBeVisible();
  });
});

it('keeps the session limit within the licence’s as it is typed', async () => {
  const page = openUsersPage();
  const dialog = await openCreate(page);
  await fill(page, dialog, { 'Session limit': '7' });
  await page.user.tab();
  // Mantine clamps to the maximum on blur; the schema refuses anything above it as well.
  expect(field(dialog, 'Session limit')).toHaveValue('3');
  expect(within(dialog).getByText('Concurrent sessions, at most 3 (the licence’s limit).')).toBeVisible();
});

describe('edit user', () => {
  it('keeps the username fixed and sends the user with its id and ACLs', async () => {
    const page = openUsersPage({
      'PUT /api/admin/users/:id': ({ params }) => data(UserResponse, listedUser({ ID: params.id ?? '' })),
    });
    const dialog = await openEdit(page, 'Ada Lovelace');
    expect(field(dialog, 'Username')).toBeDisabled();
    expect(within(dialog).getByRole('radio', { name: 'LDAP' })).toBeDisabled();
    await fill(page, dialog, { Company: 'Babbage & Co', 'Session duration (minutes)': '90' });
    await page.user.click(within(dialog).getByRole('button', { name: 'Save' }));

    expect(await screen.findByText('User updated')).toBeVisible();
    const [call] = page.api.calls('PUT /api/admin/users/:id');
    expect(call?.params.id).toBe('u-ada');
    expect(call?.body).toEqual({
      ID: 'u-ada',
      Name: 'Ada Lovelace',
      UserName: 'ada',
      Company: 'Babbage & Co',
      Duration: 90,
      SessionLimit: 3,
      AuthType: 'local',
      TOTPEnabled: false,
      ValidUntil: null,
      ThirdPartyAuth: null,
      AclIds: ['acl-1'],
      Disabled: false,
    });
  });

  it('shows a refused update in the Error dialog', async () => {
    const page = openUsersPage({ 'PUT /api/admin/users/:id': apiError(400, ErrorCodes.cannotChangeIdentity) });
    const dialog = await openEdit(page, 'grace Hopper');
    expect(field(dialog, 'Distinguished name (DN)')).toHaveValue('cn=grace,dc=navy');
    await page.user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await screen.findByRole('dialog', { name: 'Error' })).toHaveTextContent(
      'Cannot change username, password or backend type',
    );
    expect(screen.queryByText('User updated')).not.toBeInTheDocument();
  });
});
