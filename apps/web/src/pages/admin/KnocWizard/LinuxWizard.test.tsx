import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { knocFieldsBody } from '@/test-support/records/knoc-wizard';
import { currentPath } from '@/test-support/render-app';
import {
  selectNamed,
  pick,
  EDGE,
  fillOptions,
  next,
  openWizard,
  select,
  stepHeading,
  summary,
} from '@/test-support/screens/knoc-wizard';

describe('Linux wizard', { timeout: 30_000 }, () => {
  it('walks agent, settings, options, users and review, then sends the one create call', async () => {
    const { api, user } = openWizard('/admin/knocs/new/linux');
    await stepHeading('Agent');
    // The only capable agent is chosen on its own.
    await waitFor(() => expect(selectNamed('Agent')).toHaveDisplayValue('edge-1'));
    await next(user, 'Settings');
    await pick(user, 'IPv4 set', 'postern-v4');
    await next(user, 'Knoc options');
    await user.type(screen.getByRole('textbox', { name: /Maximum grant duration/ }), '60');
    await fillOptions(user, 'SSH');
    await select(user, 'Ada Lovelace');
    await select(user, 'Operations');
    await next(user, 'Review');
    expect(summary('Agent').getByText('edge-1')).toBeVisible();
    expect(summary('Users and groups').getByText('Ada Lovelace')).toBeVisible();
    expect(api.calls('POST /api/admin/knocs')).toHaveLength(0);

    await user.click(screen.getByRole('button', { name: 'Create knoc' }));
    await waitFor(() => expect(currentPath()).toBe('/admin/knocs?viewKnocId=k-new'));
    expect(api.calls('POST /api/admin/knocs').map((call) => call.body)).toEqual([
      {
        Backend: { Name: 'SSH', AgentID: EDGE.ID, Config: { ipset: {} } },
        ApiKey: { Option: 'none' },
        Knoc: {
          ...knocFieldsBody({ Description: 'SSH', MaximumGrantDuration: 3600 }),
          Config: { ipset: { V4SetName: 'postern-v4', V6SetName: '' } },
        },
        UserIDs: ['u-ada'],
        GroupIDs: ['g-ops'],
      },
    ]);
  });
});
