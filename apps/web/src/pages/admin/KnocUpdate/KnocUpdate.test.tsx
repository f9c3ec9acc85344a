import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { AdminStatusResponse, KnocResponse, type KnocRecord } from '@postern/protocol';
import { adminStatus, knocRecord } from '@/test-support/fixtures';
import { currentPath } from '@/test-support/render-app';
import { data } from '@/test-support/typed-fake-api';
import { EDGE, openWizard } from '@/test-support/screens/knoc-wizard';

const SCRIPT_KNOC = knocRecord({
  ID: 'k-door',
  Name: 'Door',
  Description: 'Door',
  BackendID: 'b-door',
  BackendName: 'Door backend',
  BackendType: 'script',
  AgentID: EDGE.ID,
  MaximumGrantDuration: 3600,
  UserIDs: ['u-ada'],
  GroupIDs: [],
  BackendConfig: {
    script: {
      Command: 'door.sh',
      EnvVars: [
        { Name: 'REGION', Sensitive: false },
        { Name: 'TOKEN', Sensitive: true },
      ],
    },
  },
  AclConfig: {
    script: {
      Name: 'door',
      EnvVars: [
        { Name: 'REGION', Value: 'eu', Sensitive: false, Encrypted: false },
        { Name: 'TOKEN', Value: 'RECORDED', Sensitive: true, Encrypted: true },
      ],
    },
  },
});

const PUT_ANSWER = data(KnocResponse, SCRIPT_KNOC);

function openUpdate(knoc: KnocRecord, routes: Parameters<typeof openWizard>[1] = {}) {
  return openWizard(`/admin/knocs/${knoc.ID}/update`, {
    'GET /api/admin/knocs/:id': data(KnocResponse, knoc),
    'PUT /api/admin/knocs/:id': PUT_ANSWER,
    ...routes,
  });
}

describe('update knoc screen', { timeout: 30_000 }, () => {
  it('shows the knoc in four tabs for a script and saves backend, knoc and members in one call', async () => {
    const { api, user } = openUpdate(SCRIPT_KNOC);
    expect(await screen.findByRole('heading', { name: 'Update Door' }, { timeout: 5000 })).toBeVisible();
    const tabs = await screen.findAllByRole('tab');
    expect(tabs.map((tab) => tab.textContent)).toEqual(['Settings', 'Knoc options', 'Variables', 'Users']);
    expect(screen.getByRole('textbox', { name: /^Command/ })).toHaveValue('door.sh');

    await user.click(screen.getByRole('tab', { name: 'Knoc options' }));
    expect(screen.getByRole('textbox', { name: /Maximum grant duration/ })).toHaveValue('60');
    await user.clear(screen.getByRole('textbox', { name: /^Name/ }));
    await user.type(screen.getByRole('textbox', { name: /^Name/ }), 'Front door');
    await user.click(screen.getByRole('tab', { name: 'Variables' }));
    // A stored sensitive value is never shown again; left empty, it is kept.
    expect(screen.getByLabelText('Value 2')).toHaveValue('');
    await user.click(screen.getByRole('button', { name: 'Save' }));

    await waitFor(() => expect(currentPath()).toBe('/admin/knocs?didUpdate=true'));
    expect(api.calls('PUT /api/admin/knocs/:id')[0]?.params).toEqual({ id: 'k-door' });
    expect(api.calls('PUT /api/admin/knocs/:id')[0]?.body).toMatchObject({
      Backend: {
        ID: 'b-door',
        Name: 'Door backend',
        AgentID: EDGE.ID,
        Config: {
          script: {
            Command: 'door.sh',
            EnvVars: [
              { Name: 'REGION', Sensitive: false },
              { Name: 'TOKEN', Sensitive: true },
            ],
          },
        },
      },
      Knoc: {
        ID: 'k-door',
        Description: 'Front door',
        MaximumGrantDuration: 3600,
        Config: {
          script: {
            Name: 'door',
            EnvVars: [
              { Name: 'REGION', Value: 'eu', Sensitive: false },
              { Name: 'TOKEN', Value: '', Sensitive: true },
            ],
          },
        },
      },
      UserIDs: ['u-ada'],
      GroupIDs: [],
    });
  });

  it('opens the first tab with an error instead of saving', async () => {
    const { api, user } = openUpdate(SCRIPT_KNOC);
    await user.click(await screen.findByRole('tab', { name: 'Knoc options' }, { timeout: 5000 }));
    await user.clear(screen.getByRole('textbox', { name: /^Name/ }));
    await user.click(screen.getByRole('tab', { name: 'Users' }));
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() =>
      expect(screen.getByRole('tab', { name: 'Knoc options' })).toHaveAttribute('aria-selected', 'true'),
    );
    expect(screen.getByText('A name is required')).toBeVisible();
    expect(api.calls('PUT /api/admin/knocs/:id')).toHaveLength(0);
  });

  it('has no Variables tab for other types', async () => {
    openUpdate(
      knocRecord({
        AgentID: EDGE.ID,
        AclConfig: { ipset: { V4SetName: 'postern-v4', V6SetName: '' } },
        BackendConfig: { ipset: {} },
      }),
    );
    const tabs = await screen.findAllByRole('tab', {}, { timeout: 5000 });
    expect(tabs.map((tab) => tab.textContent)).toEqual(['Settings', 'Knoc options', 'Users']);
  });

  it('is replaced by the no-licence message without a licence', async () => {
    openUpdate(SCRIPT_KNOC, { 'GET /api/admin/status': data(AdminStatusResponse, adminStatus()) });
    const title = await screen.findByText('You do not have a licence');
    expect(
      within(title.closest<HTMLElement>('[role="alert"]') ?? document.body).getByText(/needs a licence/),
    ).toBeVisible();
    expect(screen.queryByRole('tab')).not.toBeInTheDocument();
  });
});
