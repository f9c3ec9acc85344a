import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { AdminStatusResponse, ErrorCodes, LicenceStatusResponse } from '@postern/protocol';
import { adminStatus, signInAdmin } from '@/test-support/fixtures';
import { renderApp } from '@/test-support/render-app';
import { apiError, data, type TypedRequest } from '@/test-support/typed-fake-api';
import { findSection, installSettingsApi } from '@/test-support/screens/settings';
import { licensed, unlicensed } from '@/test-support/records/settings';

async function openLicence() {
  signInAdmin();
  const app = renderApp('/admin/settings');
  return { ...app, section: await findSection('Licence') };
}

async function openLicenceDialog(user: ReturnType<typeof renderApp>['user'], section: HTMLElement) {
  await user.click(await within(section).findByRole('button', { name: /12 of 50 users/ }));
  return screen.findByRole('dialog', { name: 'Licence' });
}

describe('settings: licence', { timeout: 30_000 }, () => {
  it('asks for a key when unlicensed, with Save and Cancel only once something is typed', async () => {
    const api = installSettingsApi();
    const { user, section } = await openLicence();
    const key = await within(section).findByRole('textbox', { name: /Licence key/ });
    expect(within(section).getByRole('button', { name: 'Save' })).toBeDisabled();
    expect(within(section).getByRole('button', { name: 'Cancel' })).toBeDisabled();
    await user.type(key, '   ');
    await user.click(within(section).getByRole('button', { name: 'Save' }));
    expect(await within(section).findByText('Enter a licence key')).toBeInTheDocument();
    await user.click(within(section).getByRole('button', { name: 'Cancel' }));
    expect(key).toHaveValue('');
    expect(api.calls('PUT /api/admin/settings/license')).toHaveLength(0);
  });

  it('after saving a key, fetches licence and system status again and shows the summary', async () => {
    let installed = false;
    const api = installSettingsApi({
      'GET /api/admin/settings/license': () => data(LicenceStatusResponse, installed ? licensed() : unlicensed()),
      'PUT /api/admin/settings/license': () => {
        installed = true;
        return data(LicenceStatusResponse, licensed());
      },
    });
    const { user, section } = await openLicence();
    await user.type(await within(section).findByRole('textbox', { name: /Licence key/ }), ' eyJsaWNlbmNlIjoxfQ.sig ');
    const statusCallsBefore = api.calls('GET /api/admin/status').length;
    const licenceCallsBefore = api.calls('GET /api/admin/settings/license').length;
    await user.click(within(section).getByRole('button', { name: 'Save' }));

    expect(await within(section).findByRole('button', { name: /12 of 50 users/ })).toBeInTheDocument();
    expect(within(section).queryByRole('textbox', { name: /Licence key/ })).not.toBeInTheDocument();
    expect(api.calls('PUT /api/admin/settings/license')[0]?.body).toEqual({ License: 'eyJsaWNlbmNlIjoxfQ.sig' });
    expect(api.calls('GET /api/admin/settings/license').length).toBeGreaterThan(licenceCallsBefore);
    await waitFor(() => expect(api.calls('GET /api/admin/status').length).toBeGreaterThan(statusCallsBefore));
    expect(screen.getByText('Licence saved')).toBeInTheDocument();
  });

  it('shows a refused key in the “Error” dialog and keeps the form', async () => {
    installSettingsApi({ 'PUT /api/admin/settings/license': apiError(400, ErrorCodes.licenceInvalid) });
    const { user, section } = await openLicence();
    await user.type(await within(section).findByRole('textbox', { name: /Licence key/ }), 'not-a-key');
    await user.click(within(section).getByRole('button', { name: 'Save' }));
    const dialog = await screen.findByRole('dialog', { name: 'Error' });
    expect(dialog).toHaveTextContent('The licence key is not valid');
    expect(within(section).getByRole('textbox', { name: /Licence key/ })).toHaveValue('not-a-key');
  });

  it('replaces the key of a licensed installation on request, and folds the field away once saved', async () => {
    const api = installSettingsApi(
      { 'PUT /api/admin/settings/license': () => data(LicenceStatusResponse, licensed()) },
      { licence: licensed() },
    );
    const { user, section } = await openLicence();
    await within(section).findByRole('button', { name: /12 of 50 users/ });
    expect(within(section).queryByRole('textbox', { name: /Licence key/ })).not.toBeInTheDocument();

    const replace = within(section).getByRole('button', { name: 'Replace the licence key' });
    expect(replace).toHaveAttribute('aria-expanded', 'false');
    await user.click(replace);
    // Changing one's mind folds the field away again, sending nothing.
    await user.click(within(section).getByRole('button', { name: 'Keep the current licence key' }));
    expect(within(section).queryByRole('textbox', { name: /Licence key/ })).not.toBeInTheDocument();

    await user.click(within(section).getByRole('button', { name: 'Replace the licence key' }));
    await user.type(within(section).getByRole('textbox', { name: /Licence key/ }), 'eyJyZW5ld2VkIjoxfQ.sig');
    await user.click(within(section).getByRole('button', { name: 'Save' }));

    expect(await screen.findByText('Licence saved')).toBeInTheDocument();
    expect(api.calls('PUT /api/admin/settings/license').map((call) => call.body)).toEqual([
      { License: 'eyJyZW5ld2VkIjoxfQ.sig' },
    ]);
    await waitFor(() =>
      expect(within(section).queryByRole('textbox', { name: /Licence key/ })).not.toBeInTheDocument(),
    );
    expect(within(section).getByRole('button', { name: /12 of 50 users/ })).toBeInTheDocument();
  });

  it('summarises version, users against the limit and days to expiry', async () => {
    installSettingsApi({}, { licence: licensed() });
    const { section } = await openLicence();
    const summary = await within(section).findByRole('button', { name: /12 of 50 users/ });
    expect(summary).toHaveTextContent('Postern 1.9.0');
    expect(summary).toHaveTextContent('Expires in 100 days');
  });

  it('opens the licence dialog with usage, overage, machines, links and the licence ID', async () => {
    const links = { SupportUrl: 'https://help.example.com/postern', LicensingUrl: 'https://shop.example.com/licences' };
    installSettingsApi(
      { 'GET /api/admin/status': data(AdminStatusResponse, adminStatus(links)) },
      { licence: licensed() },
    );
    const { user, section } = await openLicence();
    const dialog = await openLicenceDialog(user, section);
    const row = (label: string) => within(dialog).getByRole('rowheader', { name: label }).closest('tr');
    expect(row('Current users')).toHaveTextContent('12');
    expect(row('User limit')).toHaveTextContent('50');
    expect(row('Overage allowance')).toHaveTextContent('20 %');
    expect(row('Limit including overage')).toHaveTextContent('60');
    expect(row('Machines activated')).toHaveTextContent('2 of 4');
    expect(within(dialog).queryByRole('alert')).not.toBeInTheDocument();
    expect(dialog).toHaveTextContent('Admin users are not counted against the user limit.');
    expect(within(dialog).getByRole('link', { name: 'Support' })).toHaveAttribute('href', links.SupportUrl);
    expect(within(dialog).getByRole('link', { name: 'Licensing portal' })).toHaveAttribute('href', links.LicensingUrl);
    expect(dialog).toHaveTextContent('lic-7f3a');
    await user.click(within(dialog).getAllByRole('button', { name: 'Close' }).at(-1)!);
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Licence' })).not.toBeInTheDocument());
  });

  it('shows no support or licensing link the operator has not configured', async () => {
    installSettingsApi(
      { 'GET /api/admin/status': data(AdminStatusResponse, adminStatus({ SupportUrl: 'https://help.example.com' })) },
      { licence: licensed() },
    );
    const { user, section } = await openLicence();
    const dialog = await openLicenceDialog(user, section);
    expect(within(dialog).getByRole('link', { name: 'Support' })).toHaveAttribute('href', 'https://help.example.com');
    expect(within(dialog).queryByRole('link', { name: 'Licensing portal' })).not.toBeInTheDocument();
  });

  it('shows no links at all when none is configured', async () => {
    installSettingsApi({}, { licence: licensed() });
    const { user, section } = await openLicence();
    const dialog = await openLicenceDialog(user, section);
    expect(dialog).toHaveTextContent('lic-7f3a');
    expect(within(dialog).queryAllByRole('link')).toEqual([]);
  });

  it.each([
    [55, 'The user count is 10 % over the licence limit. 5 more users are allowed'],
    [61, 'beyond the overage allowance: access is denied until the licence is upgraded'],
  ])('warns when %i users are over the limit', async (UserCount, warning) => {
    installSettingsApi({}, { licence: licensed({ UserCount }) });
    const { user, section } = await openLicence();
    await user.click(await within(section).findByRole('button', { name: new RegExp(`${UserCount} of 50 users`) }));
    const dialog = await screen.findByRole('dialog', { name: 'Licence' });
    expect(within(dialog).getByRole('alert')).toHaveTextContent(warning);
  });

  it('refreshes the licence status from the dialog’s refresh icon', async () => {
    const api = installSettingsApi({
      'GET /api/admin/settings/license': ({ query }: TypedRequest) =>
        data(LicenceStatusResponse, licensed({ UserCount: query.get('refresh') === 'true' ? 14 : 12 })),
    });
    const { user, section } = await openLicence();
    const dialog = await openLicenceDialog(user, section);
    await user.click(within(dialog).getByRole('button', { name: 'Refresh licence status' }));
    await waitFor(() =>
      expect(within(dialog).getByRole('rowheader', { name: 'Current users' }).closest('tr')).toHaveTextContent('14'),
    );
    expect(api.calls('GET /api/admin/settings/license').some((call) => call.query.get('refresh') === 'true')).toBe(
      true,
    );
  });

  it('shows a failed refresh in the “Error” dialog', async () => {
    installSettingsApi({
      'GET /api/admin/settings/license': ({ query }: TypedRequest) =>
        query.get('refresh') === 'true'
          ? apiError(409, ErrorCodes.failedToRefreshLicenseStatus, 'no licence is stored')
          : data(LicenceStatusResponse, licensed()),
    });
    const { user, section } = await openLicence();
    const dialog = await openLicenceDialog(user, section);
    await user.click(within(dialog).getByRole('button', { name: 'Refresh licence status' }));
    const error = await screen.findByRole('dialog', { name: 'Error' });
    expect(error).toHaveTextContent('Failed to refresh the licence status');
  });
});
