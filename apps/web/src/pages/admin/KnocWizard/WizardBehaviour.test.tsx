import { act, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { AdminStatusResponse } from '@postern/protocol';
import i18n from '@/i18n/i18n';
import { adminStatus } from '@/test-support/fixtures';
import { currentPath } from '@/test-support/render-app';
import { apiError, data } from '@/test-support/typed-fake-api';
import { next, openWizard, selectNamed, stepHeading, summary } from '@/test-support/screens/knoc-wizard';

/** Opens the Linux wizard with edge-1 picked and IPv4 set chosen, on the Knoc options step. */
async function atOptions(routes: Parameters<typeof openWizard>[1] = {}) {
  const opened = openWizard('/admin/knocs/new/linux', routes);
  await waitFor(() => expect(selectNamed('Agent')).toHaveDisplayValue('edge-1'));
  await next(opened.user, 'Settings');
  await opened.user.click(screen.getByRole('combobox', { name: 'IPv4 set' }));
  await opened.user.click(await screen.findByRole('option', { name: 'postern-v4', hidden: true }));
  await next(opened.user, 'Knoc options');
  return opened;
}

/** Each step of the stepper: its title and its state (completed, current, not yet reached). */
const stepTexts = () =>
  Array.from(document.querySelectorAll('[data-step-state]')).map((step) => step.textContent.replace(/^\d+/, ''));

describe('knoc wizard: stepper', { timeout: 30_000 }, () => {
  it('marks steps completed, active and pending and focuses the active title', async () => {
    const { user } = openWizard('/admin/knocs/new/linux');
    await waitFor(() => expect(selectNamed('Agent')).toHaveDisplayValue('edge-1'));
    await next(user, 'Settings');
    const heading = screen.getByRole('heading', { level: 2, name: 'Settings' });
    await waitFor(() => expect(heading).toHaveFocus());
    expect(stepTexts()).toEqual([
      'AgentCompleted',
      'SettingsCurrent step',
      'Knoc optionsNot yet reached',
      'Users and groupsNot yet reached',
      'ReviewNot yet reached',
    ]);
  });

  it('blocks an invalid step, shows its errors and focuses the first one', async () => {
    const { user } = await atOptions();
    await user.type(screen.getByRole('textbox', { name: /Maximum grant duration/ }), '4');
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByText('A name is required')).toBeVisible();
    expect(screen.getByText('The maximum grant duration must be between 5 and 40320 minutes')).toBeVisible();
    await waitFor(() => expect(screen.getByRole('textbox', { name: /^Name/ })).toHaveFocus());
    expect(screen.getByRole('heading', { level: 2, name: 'Knoc options' })).toBeVisible();
  });

  it('goes back step by step keeping what was typed, and leaves through the browser history from step 1', async () => {
    window.history.replaceState(null, '', '/admin/knocs/new');
    window.history.pushState(null, '', '/admin/knocs/new/other');
    const { user } = await atOptions();
    await user.type(screen.getByRole('textbox', { name: /^Name/ }), 'SSH');
    await user.click(screen.getByRole('button', { name: 'Back' }));
    await stepHeading('Settings');
    expect(screen.getByRole('combobox', { name: 'IPv4 set' })).toHaveValue('postern-v4');
    await next(user, 'Knoc options');
    expect(screen.getByRole('textbox', { name: /^Name/ })).toHaveValue('SSH');
    await user.click(screen.getByRole('button', { name: 'Back' }));
    await stepHeading('Settings');
    await user.click(screen.getByRole('button', { name: 'Back' }));
    await stepHeading('Agent');
    await user.click(screen.getByRole('button', { name: 'Back' }));
    await waitFor(() => expect(currentPath()).toBe('/admin/knocs/new'));
  });
});

describe('knoc wizard: options step', { timeout: 30_000 }, () => {
  it('fills RFC1918’s fixed ranges and restores the admin’s own ranges after', async () => {
    const { user } = await atOptions();
    await user.click(screen.getByRole('radio', { name: 'Allow list' }));
    await user.click(screen.getByRole('button', { name: 'Add range' }));
    await user.type(screen.getByRole('textbox', { name: 'Range 1 start' }), '198.51.100.1');
    await user.type(screen.getByRole('textbox', { name: 'Range 1 end' }), '198.51.100.9');
    await user.click(screen.getByRole('radio', { name: 'RFC1918' }));
    const starts = [1, 2, 3].map((n) => screen.getByRole('textbox', { name: `Range ${n} start` }));
    expect(starts.map((input) => (input as HTMLInputElement).value)).toEqual(['10.0.0.0', '172.16.0.0', '192.168.0.0']);
    expect(starts[0]).toHaveAttribute('readonly');
    expect(screen.getByRole('radio', { name: 'Allow only private addresses' })).toBeChecked();
    await user.click(screen.getByRole('radio', { name: 'Deny list' }));
    expect(screen.getByRole('textbox', { name: 'Range 1 start' })).toHaveValue('198.51.100.1');
    expect(screen.queryByRole('textbox', { name: 'Range 2 start' })).not.toBeInTheDocument();
  });

  it('asks for a range in an allow list and a valid address in each specified IP', async () => {
    const { user } = await atOptions();
    await user.type(screen.getByRole('textbox', { name: /^Name/ }), 'SSH');
    await user.click(screen.getByRole('radio', { name: 'Allow list' }));
    await user.click(screen.getByRole('radio', { name: 'Specified IP addresses' }));
    await user.click(screen.getByRole('button', { name: 'Add IP address' }));
    await user.type(screen.getByRole('textbox', { name: /^IP address 1/ }), '300.1.1.1');
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByText('At least one IP range must be present')).toBeVisible();
    expect(screen.getByText('Invalid IP address')).toBeVisible();
  });

  it('previews the knoc disabled for users outside a restriction, with the hidden note and auto-browse warning', async () => {
    const { user } = await atOptions();
    await user.type(screen.getByRole('textbox', { name: /^Name/ }), 'SSH');
    await user.click(screen.getByRole('checkbox', { name: 'Hide from users' }));
    await user.click(screen.getByRole('checkbox', { name: /Open the URL for users automatically/ }));
    await user.click(screen.getByRole('radio', { name: 'RFC1918' }));
    await user.click(screen.getByRole('button', { name: 'database' }));
    await next(user, 'Users and groups');
    await next(user, 'Review');
    const preview = within(screen.getByRole('region', { name: 'Preview' }));
    expect(preview.getByText('SSH')).toBeVisible();
    expect(preview.getByRole('button', { name: 'Disabled' })).toBeDisabled();
    expect(screen.getByText('This knoc is hidden from users: they will not see this card.')).toBeVisible();
    expect(screen.getByText('Users will be taken to the URL automatically after each grant.')).toBeVisible();
    expect(summary('Knoc options').getByText('database')).toBeVisible();
    expect(summary('Knoc options').getByText(/^RFC1918 \(Allow only private addresses\), 10\.0\.0\.0/)).toBeVisible();
  });
});

describe('knoc wizard: page', { timeout: 30_000 }, () => {
  it('shows the Error dialog when the create fails and stays on the review', async () => {
    const { user } = await atOptions({ 'POST /api/admin/knocs': apiError(409, 'err.backendNameExists', 'Name') });
    await user.type(screen.getByRole('textbox', { name: /^Name/ }), 'SSH');
    await next(user, 'Users and groups');
    await next(user, 'Review');
    await user.click(screen.getByRole('button', { name: 'Create knoc' }));
    const dialog = await screen.findByRole('dialog', { name: 'Error' });
    expect(dialog).toHaveTextContent('A backend with that name already exists');
    expect(currentPath()).toBe('/admin/knocs/new/linux');
  });

  it('replaces the wizard with the no-licence message and the licensing link', async () => {
    openWizard('/admin/knocs/new/script', {
      'GET /api/admin/status': data(AdminStatusResponse, adminStatus({ LicensingUrl: 'https://licences.example.com' })),
    });
    const title = await screen.findByText('You do not have a licence');
    const notice = within(title.closest<HTMLElement>('[role="alert"]') ?? document.body);
    expect(notice.getByText(/Creating and changing knocs needs a licence/)).toBeVisible();
    expect(notice.getByRole('link', { name: 'Get a licence' })).toHaveAttribute('href', 'https://licences.example.com');
    expect(screen.queryByRole('button', { name: 'Next' })).not.toBeInTheDocument();
  });

  it('speaks German', async () => {
    const { user } = openWizard('/admin/knocs/new/linux');
    await waitFor(() => expect(selectNamed('Agent')).toHaveDisplayValue('edge-1'));
    await act(() => i18n.changeLanguage('de'));
    expect(screen.getByRole('button', { name: 'Weiter' })).toBeEnabled();
    expect(screen.getByRole('button', { name: 'Zurück' })).toBeVisible();
    await user.click(screen.getByRole('button', { name: 'Weiter' }));
    expect(await screen.findByRole('heading', { level: 2, name: 'Einstellungen' })).toBeVisible();
    expect(stepTexts()).toContain('Knoc-OptionenNoch nicht erreicht');
  });
});
