import { useState } from 'react';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { UserCreateResponse, UserListResponse, type UserRecord } from '@postern/protocol';
import { usersApi } from '@/features/users/api';
import { userRecord } from '@/test-support/fixtures';
import { groupRecord } from '@/test-support/records/groups';
import { renderUi } from '@/test-support/render-ui';
import { data, installTypedFakeApi } from '@/test-support/typed-fake-api';
import { MembersSection } from './MembersSection';
import type { MembersValues } from './members';

vi.setConfig({ testTimeout: 20_000 });

const ADA = userRecord();
const ALAN = userRecord({ ID: 'u-alan', Name: 'Alan Turing', UserName: 'alan.turing' });
// A group, so the section shows its tables rather than the link to the groups screen (no router here).
const GROUPS = [groupRecord({ ID: 'g-ops', Name: 'Operations', Type: 'local', UserIDs: [] })];

/** The Users step as the wizard hosts it: the users from the server, the selection in state. */
function Harness({ onValue }: { onValue: (value: MembersValues) => void }) {
  const users = usersApi.useList().data ?? [];
  const [value, setValue] = useState<MembersValues>({ userIds: [], groupIds: [] });
  return (
    <MembersSection
      users={users}
      groups={GROUPS}
      value={value}
      onChange={(next) => {
        setValue(next);
        onValue(next);
      }}
    />
  );
}

function renderSection(created: UserRecord) {
  let listed: UserRecord[] = [ADA];
  const api = installTypedFakeApi({
    'GET /api/admin/users': () => data(UserListResponse, listed),
    'POST /api/admin/users': () => {
      listed = [...listed, created];
      return data(UserCreateResponse, { User: created, PlaintextKey: null });
    },
  });
  const onValue = vi.fn();
  return { api, onValue, ...renderUi(<Harness onValue={onValue} />) };
}

/** A field by its label, whether or not the label carries the required asterisk. */
const field = (dialog: HTMLElement, label: string) =>
  within(dialog).getByLabelText((content) => content.replace(/\s*\*$/, '') === label, { selector: 'input' });

async function createUserThroughDialog(page: ReturnType<typeof renderSection>, name: string) {
  await page.user.click(await screen.findByRole('button', { name: 'Create user' }));
  const dialog = await screen.findByRole('dialog', { name: 'Create user' }, { timeout: 3_000 });
  for (const [label, value] of [
    ['Name', name],
    ['Password', 'enigma-2-long'],
    ['Confirm password', 'enigma-2-long'],
  ] as const) {
    await page.user.click(field(dialog, label));
    await page.user.paste(value);
  }
  await page.user.click(within(dialog).getByRole('button', { name: 'Create' }));
  await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Create user' })).not.toBeInTheDocument());
}

describe('the Users step’s Create user', () => {
  it('selects the user just created, beside the ones already chosen', async () => {
    const page = renderSection(ALAN);
    await page.user.click(await screen.findByRole('checkbox', { name: 'Select Ada Lovelace' }));
    await createUserThroughDialog(page, 'Alan Turing');

    expect(page.api.calls('POST /api/admin/users')).toHaveLength(1);
    expect(await screen.findByRole('checkbox', { name: 'Select Alan Turing' })).toBeChecked();
    expect(screen.getByRole('checkbox', { name: 'Select Ada Lovelace' })).toBeChecked();
    expect(page.onValue).toHaveBeenLastCalledWith({ userIds: [ADA.ID, ALAN.ID], groupIds: [] });
  });

  it('selects no SAML user, which this table does not list', async () => {
    const page = renderSection({ ...ALAN, AuthType: 'SAML' });
    await screen.findByRole('checkbox', { name: 'Select Ada Lovelace' });
    await createUserThroughDialog(page, 'Alan Turing');
    expect(page.api.calls('POST /api/admin/users')).toHaveLength(1);
    expect(page.onValue).not.toHaveBeenCalled();
  });
});
