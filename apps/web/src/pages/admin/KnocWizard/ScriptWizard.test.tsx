import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { BackendListResponse } from '@postern/protocol';
import { data } from '@/test-support/typed-fake-api';
import { currentPath } from '@/test-support/render-app';
import {
  EDGE,
  next,
  OLD,
  openWizard,
  select,
  selectNamed,
  stepHeading,
  summary,
  takenBackend,
} from '@/test-support/screens/knoc-wizard';
import type { UserEvent } from '@testing-library/user-event';

describe('script wizard', { timeout: 30_000 }, () => {
  it('needs agent 1.6.0, gathers variables (dropping empty rows) and sends them to backend and knoc', async () => {
    const { api, user } = openWizard(
      '/admin/knocs/new/script',
      { 'GET /api/admin/backends': data(BackendListResponse, [takenBackend('Door')]) },
      [EDGE, OLD],
    );
    await stepHeading('Agent');
    // old-box runs 1.5.0: listed, disabled with its reason; edge-1 is then the only choice.
    expect(await screen.findByRole('option', { name: 'old-box — Agent version below 1.6.0' })).toBeDisabled();
    await toVariables(user);

    for (let i = 0; i < 3; i += 1) await user.click(screen.getByRole('button', { name: 'Add variable' }));
    await user.type(screen.getByRole('textbox', { name: 'Name 1' }), 'REGION');
    await user.type(screen.getByRole('textbox', { name: 'Name 3' }), 'REGION');
    await user.type(screen.getByLabelText('Value 3'), 'us');
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByText('An environment variable needs a value')).toBeVisible();
    expect(screen.getByText('Environment variable names must be unique')).toBeVisible();
    await waitFor(() => expect(screen.getByLabelText('Value 1')).toHaveFocus());

    await user.type(screen.getByLabelText('Value 1'), 'eu');
    await user.clear(screen.getByRole('textbox', { name: 'Name 3' }));
    await user.type(screen.getByRole('textbox', { name: 'Name 3' }), 'TOKEN');
    await user.click(screen.getByRole('checkbox', { name: 'Variable 3 is sensitive' }));
    await next(user, 'Users and groups');
    await select(user, 'Engineering');
    await next(user, 'Review');
    // A sensitive value is not shown again on the review; a plain one is.
    expect(summary('Environment variables').getByText('eu')).toBeVisible();
    expect(summary('Environment variables').getByText('Sensitive, not shown')).toBeVisible();
    expect(summary('Environment variables').queryByText('us')).toBeNull();
    expect(summary('Users and groups').getByText('Engineering')).toBeVisible();

    await user.click(screen.getByRole('button', { name: 'Create knoc' }));
    await waitFor(() => expect(currentPath()).toBe('/admin/knocs?viewKnocId=k-new'));
    expect(api.calls('POST /api/admin/knocs')[0]?.body).toMatchObject({
      // "Door" is taken by another backend.
      Backend: {
        Name: 'Door (2)',
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
        Description: 'Door',
        Config: {
          script: {
            Name: '',
            EnvVars: [
              { Name: 'REGION', Value: 'eu', Sensitive: false },
              { Name: 'TOKEN', Value: 'us', Sensitive: true },
            ],
          },
        },
      },
      GroupIDs: ['g-eng'],
    });
  });

  it('drops a wholly empty variable row', async () => {
    const { api, user } = openWizard('/admin/knocs/new/script');
    await toVariables(user);
    await user.click(screen.getByRole('button', { name: 'Add variable' }));
    await fillOptionsSkip(user);
    await user.click(screen.getByRole('button', { name: 'Create knoc' }));
    await waitFor(() => expect(api.calls('POST /api/admin/knocs')).toHaveLength(1));
    expect(api.calls('POST /api/admin/knocs')[0]?.body).toMatchObject({
      Backend: { Config: { script: { EnvVars: [] } } },
      Knoc: { Config: { script: { EnvVars: [] } } },
    });
  });
});

describe('script wizard for a vendor without a driver', { timeout: 30_000 }, () => {
  it('starts with the vendor’s script, says where it runs, and keeps it when the agent is chosen', async () => {
    const { api, user } = openWizard('/admin/knocs/new/script?vendor=mikrotik');
    expect(await screen.findByRole('alert', { name: 'Mikrotik through a script' })).toHaveTextContent(
      'runs mikrotik.sh from the agent’s scripts directory',
    );
    await waitFor(() => expect(selectNamed('Agent')).toHaveDisplayValue('edge-1'));
    await next(user, 'Settings');
    expect(screen.getByRole('textbox', { name: /^Command/ })).toHaveValue('mikrotik.sh');
    await next(user, 'Knoc options');
    await user.type(screen.getByRole('textbox', { name: /^Name/ }), 'Branch router');
    await next(user, 'Environment variables');
    await fillOptionsSkip(user);
    await user.click(screen.getByRole('button', { name: 'Create knoc' }));
    await waitFor(() => expect(api.calls('POST /api/admin/knocs')).toHaveLength(1));
    expect(api.calls('POST /api/admin/knocs')[0]?.body).toMatchObject({
      Backend: { Config: { script: { Command: 'mikrotik.sh' } } },
    });
  });

  it('ignores a vendor it does not know', async () => {
    openWizard('/admin/knocs/new/script?vendor=..%2Fetc');
    await stepHeading('Agent');
    expect(screen.queryByRole('alert')).toBeNull();
  });
});

/** From the agent step (edge-1 picked on its own) to the variables, with command door.sh and description Door. */
async function toVariables(user: UserEvent) {
  await waitFor(() => expect(selectNamed('Agent')).toHaveDisplayValue('edge-1'));
  await next(user, 'Settings');
  await user.type(screen.getByRole('textbox', { name: /^Command/ }), 'door.sh');
  await next(user, 'Knoc options');
  await user.type(screen.getByRole('textbox', { name: /^Name/ }), 'Door');
  await next(user, 'Environment variables');
}

/** From the variables step on to the review without choosing anyone. */
async function fillOptionsSkip(user: UserEvent) {
  await next(user, 'Users and groups');
  await next(user, 'Review');
}
