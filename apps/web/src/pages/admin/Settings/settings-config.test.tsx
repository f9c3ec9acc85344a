import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ErrorCodes, SettingsResponse } from '@postern/protocol';
import { signInAdmin } from '@/test-support/fixtures';
import { renderApp } from '@/test-support/render-app';
import { apiError, data, type TypedRequest } from '@/test-support/typed-fake-api';
import { findSection, installSettingsApi } from '@/test-support/screens/settings';
import { settingsRecord } from '@/test-support/records/settings';

/** PUT config answers the stored record with the body applied, as the server does. */
const echoConfig = ({ body }: TypedRequest) => data(SettingsResponse, settingsRecord({ ...(body as object) }));

async function openSection(name: string) {
  signInAdmin();
  const app = renderApp('/admin/settings');
  const section = await findSection(name);
  return { ...app, section };
}

const button = (section: HTMLElement, name: string) => within(section).getByRole('button', { name });

describe('settings: IP discovery, kiosk and logging', { timeout: 30_000 }, () => {
  it('enables Save and Cancel only when the section changed, and Cancel restores it', async () => {
    installSettingsApi();
    const { user, section } = await openSection('Logging');
    expect(button(section, 'Save')).toBeDisabled();
    expect(button(section, 'Cancel')).toBeDisabled();

    const debug = within(section).getByRole('checkbox', { name: /Debug mode: remember to turn it off/ });
    await user.click(debug);
    expect(button(section, 'Save')).toBeEnabled();
    expect(button(section, 'Cancel')).toBeEnabled();

    await user.click(debug);
    expect(button(section, 'Save')).toBeDisabled();

    await user.type(within(section).getByLabelText('GELF listener URL', { exact: false }), 'udp://g');
    await user.click(button(section, 'Cancel'));
    expect(within(section).getByRole('textbox', { name: /GELF listener URL/ })).toHaveValue('');
    expect(button(section, 'Save')).toBeDisabled();
  });

  it('saves logging with the other sections’ stored values and says so', async () => {
    const api = installSettingsApi({ 'PUT /api/admin/settings/config': echoConfig });
    const { user, section } = await openSection('Logging');
    await user.click(within(section).getByRole('checkbox', { name: /Debug mode/ }));
    await user.type(
      within(section).getByRole('textbox', { name: /GELF listener URL/ }),
      'tls://graylog.example.com:12201',
    );
    await user.click(button(section, 'Save'));

    expect(await screen.findByText('Settings updated')).toBeInTheDocument();
    expect(api.calls('PUT /api/admin/settings/config')[0]?.body).toEqual({
      DiscoverIP: false,
      DiscoverIPURL: '',
      DebugMode: true,
      GELFListenerURL: 'tls://graylog.example.com:12201',
      KioskSessionDuration: 15,
    });
    await waitFor(() => expect(button(section, 'Save')).toBeDisabled());
  });

  it.each([
    ['http://graylog.example.com:12201', 'URL must be udp, tcp, or tls'],
    ['udp://graylog.example.com', 'URL must be udp, tcp, or tls'],
    ['udp://user:secret@graylog.example.com:12201', 'The URL must not contain a user name or password'],
  ])('refuses the GELF URL %s with “%s”', async (url, message) => {
    const api = installSettingsApi();
    const { user, section } = await openSection('Logging');
    await user.type(within(section).getByRole('textbox', { name: /GELF listener URL/ }), url);
    await user.click(button(section, 'Save'));
    expect(await within(section).findByText(message, { exact: false })).toBeInTheDocument();
    expect(api.calls('PUT /api/admin/settings/config')).toHaveLength(0);
  });

  it('refuses an IP discovery URL that is not http or https', async () => {
    const api = installSettingsApi();
    const { user, section } = await openSection('IP discovery');
    await user.type(within(section).getByRole('textbox', { name: /IP discovery URL/ }), 'ftp://ip.example.com');
    await user.click(button(section, 'Save'));
    expect(await within(section).findByText('URL must be http or https')).toBeInTheDocument();
    expect(api.calls('PUT /api/admin/settings/config')).toHaveLength(0);
  });

  it('saves DiscoverIP, DiscoverIPURL and the unattested trust', async () => {
    const api = installSettingsApi({ 'PUT /api/admin/settings/config': echoConfig });
    const { user, section } = await openSection('IP discovery');
    await user.click(within(section).getByRole('checkbox', { name: 'Discover IP addresses' }));
    await user.type(within(section).getByRole('textbox', { name: /IP discovery URL/ }), 'https://ip.example.com');
    await user.click(within(section).getByRole('checkbox', { name: /Trust addresses the IP discovery URL reports/ }));
    expect(within(section).getByText(/anyone signed in can have any address/)).toBeInTheDocument();
    await user.click(button(section, 'Save'));

    await waitFor(() => expect(api.calls('PUT /api/admin/settings/config')).toHaveLength(1));
    expect(api.calls('PUT /api/admin/settings/config')[0]?.body).toEqual({
      DiscoverIP: true,
      DiscoverIPURL: 'https://ip.example.com',
      DiscoverIPv4URL: '',
      DiscoverIPv6URL: '',
      DiscoverIPTrustUnattested: true,
      DebugMode: false,
      GELFListenerURL: '',
      KioskSessionDuration: 15,
    });
  });

  it('saves the IPv4-only and IPv6-only discovery URLs, and refuses one that is not http or https', async () => {
    const api = installSettingsApi({ 'PUT /api/admin/settings/config': echoConfig });
    const { user, section } = await openSection('IP discovery');
    await user.type(within(section).getByRole('textbox', { name: /IPv4-only discovery URL/ }), 'ftp://v4.example.com');
    await user.click(button(section, 'Save'));
    expect(await within(section).findByText('URL must be http or https')).toBeInTheDocument();
    expect(api.calls('PUT /api/admin/settings/config')).toHaveLength(0);

    await user.clear(within(section).getByRole('textbox', { name: /IPv4-only discovery URL/ }));
    await user.type(within(section).getByRole('textbox', { name: /IPv4-only discovery URL/ }), 'http://v4.example.com');
    await user.type(within(section).getByRole('textbox', { name: /IPv6-only discovery URL/ }), 'http://v6.example.com');
    await user.click(button(section, 'Save'));
    await waitFor(() => expect(api.calls('PUT /api/admin/settings/config')).toHaveLength(1));
    expect(api.calls('PUT /api/admin/settings/config')[0]?.body).toMatchObject({
      DiscoverIPv4URL: 'http://v4.example.com',
      DiscoverIPv6URL: 'http://v6.example.com',
    });
  });

  it.each([['4'], ['121'], ['']])('refuses a kiosk duration of “%s” with “min 5, max 120”', async (typed) => {
    const api = installSettingsApi();
    const { user, section } = await openSection('Kiosk session duration');
    const field = within(section).getByRole('textbox', { name: /Duration in minutes/ });
    await user.clear(field);
    if (typed !== '') await user.type(field, typed);
    await user.click(button(section, 'Save'));
    expect(await within(section).findByText('min 5, max 120')).toBeInTheDocument();
    expect(api.calls('PUT /api/admin/settings/config')).toHaveLength(0);
  });

  it('saves a kiosk duration within 5 to 120 minutes', async () => {
    const api = installSettingsApi({ 'PUT /api/admin/settings/config': echoConfig });
    const { user, section } = await openSection('Kiosk session duration');
    const field = within(section).getByRole('textbox', { name: /Duration in minutes/ });
    await user.clear(field);
    await user.type(field, '120');
    await user.click(button(section, 'Save'));
    await waitFor(() => expect(api.calls('PUT /api/admin/settings/config')).toHaveLength(1));
    expect(api.calls('PUT /api/admin/settings/config')[0]?.body).toMatchObject({ KioskSessionDuration: 120 });
  });

  it('shows a refusal naming no field in the “Error” dialog and keeps the edit', async () => {
    installSettingsApi({ 'PUT /api/admin/settings/config': apiError(500, ErrorCodes.storeUnavailable) });
    const { user, section } = await openSection('Logging');
    await user.click(within(section).getByRole('checkbox', { name: /Debug mode/ }));
    await user.click(button(section, 'Save'));
    const dialog = await screen.findByRole('dialog', { name: 'Error' });
    expect(within(dialog).getByRole('alert')).not.toHaveTextContent(/^$/);
    await user.click(within(dialog).getAllByRole('button', { name: 'Close' }).at(-1)!);
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Error' })).not.toBeInTheDocument());
    expect(within(section).getByRole('checkbox', { name: /Debug mode/ })).toBeChecked();
    expect(button(section, 'Save')).toBeEnabled();
  });

  it('shows a refusal naming a field under that field', async () => {
    installSettingsApi({
      'PUT /api/admin/settings/config': apiError(400, ErrorCodes.urlMustBeGelf, 'GELFListenerURL'),
    });
    const { user, section } = await openSection('Logging');
    await user.type(within(section).getByRole('textbox', { name: /GELF listener URL/ }), 'udp://g.example.com:1');
    await user.click(button(section, 'Save'));
    expect(await within(section).findByText('URL must be udp, tcp, or tls')).toBeInTheDocument();
    expect(screen.queryByRole('dialog', { name: 'Error' })).not.toBeInTheDocument();
  });
});
