import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { currentPath } from '@/test-support/render-app';
import {
  choose,
  EDGE,
  fillOptions,
  next,
  OLD,
  openWizard,
  selectNamed,
  stepHeading,
  summary,
} from '@/test-support/screens/knoc-wizard';

describe('proxy wizard', { timeout: 30_000 }, () => {
  it('takes the agent’s socket, checks the ACL ID, warns about an old agent and sends haproxy', async () => {
    const { api, user } = openWizard('/admin/knocs/new/proxy', {}, [EDGE, OLD]);
    await stepHeading('Agent');
    // Two capable agents: none is chosen for the admin, and Next waits.
    expect(await screen.findByRole('combobox', { name: /^Agent/ })).toHaveDisplayValue(
      'Choose the agent that operates the backend',
    );
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();
    await choose(user, 'Agent', 'old-box');
    expect(await screen.findByText(/Update the agent with the operating system’s package manager/)).toBeVisible();
    await next(user, 'Settings');
    expect(screen.getByRole('textbox', { name: /^Address/ })).toHaveValue('/run/haproxy/admin.sock');

    const aclId = screen.getByRole('textbox', { name: /^HAProxy ACL ID/ });
    await user.type(aclId, '7a');
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByText('The ACL ID must be a number')).toBeVisible();
    await waitFor(() => expect(aclId).toHaveFocus());
    expect(screen.getByRole('heading', { level: 2, name: 'Settings' })).toBeVisible();

    await user.clear(aclId);
    await user.type(aclId, '7');
    await next(user, 'Knoc options');
    await fillOptions(user, 'Intranet');
    await next(user, 'Review');
    expect(summary('Agent').getByText(/not compatible with the agent’s version 1.5.0/)).toBeVisible();
    expect(summary('Settings').getByText('/run/haproxy/admin.sock')).toBeVisible();
    expect(summary('Users and groups').getByText('No users')).toBeVisible();
    expect(summary('Users and groups').getByText('No SAML groups')).toBeVisible();
    expect(summary('Users and groups').getByText('No local groups')).toBeVisible();
    expect(api.calls('POST /api/admin/knocs')).toHaveLength(0);

    await user.click(screen.getByRole('button', { name: 'Create knoc' }));
    await waitFor(() => expect(currentPath()).toBe('/admin/knocs?viewKnocId=k-new'));
    const [call] = api.calls('POST /api/admin/knocs');
    expect(call?.body).toMatchObject({
      Backend: {
        Name: 'Intranet',
        AgentID: OLD.ID,
        Config: { haproxy: { Protocol: 'unix', Address: '/run/haproxy/admin.sock' } },
      },
      Knoc: { Description: 'Intranet', Config: { haproxy: { ID: '7' } } },
      UserIDs: [],
      GroupIDs: [],
    });
  });

  it('switches to knocproxy with its own defaults and name rule', async () => {
    const { api, user } = openWizard('/admin/knocs/new/proxy');
    await stepHeading('Agent');
    await waitFor(() => expect(selectNamed('Agent')).toHaveDisplayValue('edge-1'));
    await next(user, 'Settings');
    await choose(user, 'Proxy type', 'Knoc proxy');
    const name = screen.getByRole('textbox', { name: /^ACL name/ });
    await user.type(name, 'web-1');
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByText('Only letters, numbers, and underscores are allowed.')).toBeVisible();
    await user.clear(name);
    await user.type(name, 'web_1');
    await next(user, 'Knoc options');
    await fillOptions(user, 'Wiki');
    await next(user, 'Review');
    await user.click(screen.getByRole('button', { name: 'Create knoc' }));
    await waitFor(() => expect(api.calls('POST /api/admin/knocs')).toHaveLength(1));
    expect(api.calls('POST /api/admin/knocs')[0]?.body).toMatchObject({
      Backend: { Config: { knocproxy: { Protocol: 'unix', Address: '/var/run/haproxy.sock' } } },
      Knoc: { Config: { knocproxy: { Name: 'web_1' } } },
    });
  });
});
