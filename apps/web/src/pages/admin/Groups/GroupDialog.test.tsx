import { screen, waitFor, within } from '@testing-library/react';
import type { UserEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { GroupResponse } from '@postern/protocol';
import { apiError, data } from '@/test-support/typed-fake-api';
import { GROUPS, groupsTable, openGroups } from '@/test-support/screens/groups';

async function openCreate(user: UserEvent) {
  await groupsTable();
  await user.click(screen.getByRole('button', { name: 'Create group' }));
  return screen.findByRole('dialog', { name: 'Create group' });
}

const save = (user: UserEvent, dialog: HTMLElement) => user.click(within(dialog).getByRole('button', { name: 'Save' }));
const checklist = (dialog: HTMLElement, name: string) => within(dialog).getByRole('group', { name });

describe('groups screen: create', { timeout: 30_000 }, () => {
  it('requires a name and sends nothing without one', async () => {
    const { api, user } = openGroups();
    const dialog = await openCreate(user);
    await save(user, dialog);
    expect(await within(dialog).findByText('A group needs a name')).toBeVisible();
    expect(api.calls('POST /api/admin/groups')).toHaveLength(0);
  });

  it('lists knocs without hidden helpers, disables SAML users, and creates with the chosen ones', async () => {
    const { api, user } = openGroups({ 'POST /api/admin/groups': data(GroupResponse, GROUPS[0]!) });
    const dialog = await openCreate(user);
    const knocs = checklist(dialog, 'Knocs');
    const users = checklist(dialog, 'Users');
    expect(await within(knocs).findByRole('checkbox', { name: 'Admin VPN' })).toBeEnabled();
    expect(within(knocs).queryByRole('checkbox', { name: 'helper' })).not.toBeInTheDocument();
    expect(await within(users).findByRole('checkbox', { name: /Sam \(sam\)/ })).toBeDisabled();
    expect(users).toHaveTextContent('SAML user: groups come from the identity provider');

    await user.type(within(dialog).getByLabelText(/^Name/), ' Ops ');
    await user.type(within(dialog).getByLabelText('Description'), 'On call');
    await user.click(within(knocs).getByRole('checkbox', { name: 'Admin VPN' }));
    await user.click(within(users).getByRole('checkbox', { name: /Bob \(bob\)/ }));
    await save(user, dialog);
    expect(await screen.findByText('Group Ops created')).toBeVisible();
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(api.calls('POST /api/admin/groups')[0]?.body).toEqual({
      Name: 'Ops',
      Description: 'On call',
      Type: 'local',
      ACLIDs: ['k-vpn'],
      UserIDs: ['u-bob'],
    });
    await waitFor(() => expect(api.calls('GET /api/admin/groups')).toHaveLength(2));
  });

  it('keeps ticked users that the filter hides', async () => {
    const { api, user } = openGroups({ 'POST /api/admin/groups': data(GroupResponse, GROUPS[0]!) });
    const dialog = await openCreate(user);
    const users = checklist(dialog, 'Users');
    await user.click(await within(users).findByRole('checkbox', { name: /Ada Lovelace/ }));
    await user.type(within(users).getByRole('textbox', { name: 'Filter Users' }), 'bob');
    expect(within(users).queryByRole('checkbox', { name: /Ada Lovelace/ })).not.toBeInTheDocument();
    await user.click(within(users).getByRole('checkbox', { name: /Bob/ }));
    await user.type(within(dialog).getByLabelText(/^Name/), 'Ops');
    await save(user, dialog);
    await waitFor(() => expect(api.calls('POST /api/admin/groups')).toHaveLength(1));
    expect(api.calls('POST /api/admin/groups')[0]?.body).toMatchObject({ UserIDs: ['u-ada', 'u-bob'] });
  });

  it('creates a SAML group without members and says why the users are fixed', async () => {
    const { api, user } = openGroups({ 'POST /api/admin/groups': data(GroupResponse, GROUPS[1]!) });
    const dialog = await openCreate(user);
    const users = checklist(dialog, 'Users');
    await user.click(await within(users).findByRole('checkbox', { name: /Ada Lovelace/ }));
    await user.selectOptions(within(dialog).getByRole('combobox', { name: /^Type/ }), 'SAML');
    expect(within(dialog).getByText('The members of SAML and dynamic groups come from SAML sign-ins.')).toBeVisible();
    expect(within(users).getByRole('checkbox', { name: /Ada Lovelace/ })).toBeDisabled();
    expect(within(users).getByRole('checkbox', { name: /Ada Lovelace/ })).not.toBeChecked();
    await user.type(within(dialog).getByLabelText(/^Name/), 'Eng');
    await save(user, dialog);
    await waitFor(() => expect(api.calls('POST /api/admin/groups')).toHaveLength(1));
    expect(api.calls('POST /api/admin/groups')[0]?.body).toMatchObject({ Type: 'saml', UserIDs: [] });
  });

  it('shows a taken name on the Name field (err.groupNameExists)', async () => {
    const { user } = openGroups({ 'POST /api/admin/groups': apiError(409, 'err.groupNameExists', 'Name') });
    const dialog = await openCreate(user);
    await user.type(within(dialog).getByLabelText(/^Name/), 'Operations');
    await save(user, dialog);
    expect(await within(dialog).findByText('A group with that name already exists')).toBeVisible();
    expect(within(dialog).getByLabelText(/^Name/)).toHaveAttribute('aria-invalid', 'true');
  });
});

describe('groups screen: edit', { timeout: 30_000 }, () => {
  it('fixes the type, starts from the group’s knocs and users, and sends the update with the ID', async () => {
    const { api, user } = openGroups({ 'PUT /api/admin/groups/:id': data(GroupResponse, GROUPS[0]!) });
    await groupsTable();
    await user.click(screen.getByRole('button', { name: 'Edit Operations' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit group Operations' });
    expect(within(dialog).getByRole('combobox', { name: /^Type/ })).toBeDisabled();
    expect(dialog).toHaveTextContent('The type of a group cannot be changed after it is created');
    const knocs = checklist(dialog, 'Knocs');
    expect(await within(knocs).findByRole('checkbox', { name: 'Admin VPN' })).toBeChecked();
    await user.click(within(knocs).getByRole('checkbox', { name: 'Billing database' }));
    await save(user, dialog);
    expect(await screen.findByText('Group Operations updated')).toBeVisible();
    const call = api.calls('PUT /api/admin/groups/:id')[0];
    expect(call?.params).toEqual({ id: 'g-ops' });
    expect(call?.body).toEqual({
      ID: 'g-ops',
      Name: 'Operations',
      Description: 'On-call staff',
      Type: 'local',
      ACLIDs: ['k-vpn'],
      UserIDs: ['u-ada'],
    });
  });

  it('sends a SAML group’s members back unchanged', async () => {
    const { api, user } = openGroups({ 'PUT /api/admin/groups/:id': data(GroupResponse, GROUPS[1]!) });
    await groupsTable();
    await user.click(screen.getByRole('button', { name: 'Edit Engineering' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit group Engineering' });
    expect(await within(checklist(dialog, 'Users')).findByRole('checkbox', { name: /Sam/ })).toBeChecked();
    await save(user, dialog);
    await waitFor(() => expect(api.calls('PUT /api/admin/groups/:id')).toHaveLength(1));
    expect(api.calls('PUT /api/admin/groups/:id')[0]?.body).toMatchObject({
      Type: 'saml',
      UserIDs: ['u-sam', 'u-x', 'u-y'],
    });
  });

  it('shows a refusal naming no field above the form and stays open', async () => {
    const { user } = openGroups({ 'PUT /api/admin/groups/:id': apiError(500, 'err.internalServerError') });
    await groupsTable();
    await user.click(screen.getByRole('button', { name: 'Edit Operations' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit group Operations' });
    await save(user, dialog);
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Internal server error');
    expect(screen.getByRole('dialog', { name: 'Edit group Operations' })).toBeVisible();
  });
});
