import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { SettingsResponse } from '@postern/protocol';
import { signInAdmin } from '@/test-support/fixtures';
import { renderApp } from '@/test-support/render-app';
import { data, type TypedRequest } from '@/test-support/typed-fake-api';
import { findSection, installSettingsApi } from '@/test-support/screens/settings';
import { settingsRecord } from '@/test-support/records/settings';

const STORED_LOGO = 'data:image/png;base64,iVBORw0KGgo=';

/** PUT customize answers the record with the body applied (a logo sent as null is removed). */
const echoCustomise = ({ body }: TypedRequest) => {
  const { Logo, LightModeLogo, ...rest } = body as Record<string, unknown>;
  return data(
    SettingsResponse,
    settingsRecord({
      ...rest,
      ...(Logo === undefined ? { Logo: STORED_LOGO } : { Logo: (Logo as string | null) ?? '' }),
      ...(LightModeLogo === undefined ? {} : { LightModeLogo: (LightModeLogo as string | null) ?? '' }),
    }),
  );
};

async function openBranding() {
  signInAdmin();
  const app = renderApp('/admin/settings');
  return { ...app, section: await findSection('Branding') };
}

const png = () => new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], 'brand.png', { type: 'image/png' });

describe('settings: branding and UI', { timeout: 30_000 }, () => {
  it('saves the chosen accent and high accessibility mode, sending no logo that did not change', async () => {
    const api = installSettingsApi(
      { 'PUT /api/admin/settings/customize': echoCustomise },
      { settings: settingsRecord({ Logo: STORED_LOGO }) },
    );
    const { user, section } = await openBranding();
    expect(within(section).getByRole('radio', { name: 'Grape' })).toBeChecked();
    for (const accent of ['Teal', 'Grape', 'Iceberg', 'Rose', 'Offsite']) {
      expect(within(section).getByRole('radio', { name: accent })).toBeInTheDocument();
    }
    await user.click(within(section).getByRole('radio', { name: 'Iceberg' }));
    await user.click(within(section).getByRole('checkbox', { name: 'High accessibility mode' }));
    expect(within(section).getByText(/adds extras such as a Hide Timer button/)).toBeInTheDocument();
    await user.click(within(section).getByRole('button', { name: 'Save' }));

    await waitFor(() => expect(api.calls('PUT /api/admin/settings/customize')).toHaveLength(1));
    expect(api.calls('PUT /api/admin/settings/customize')[0]?.body).toEqual({
      Accent: 'iceberg',
      HighAccessibility: true,
      NewUserDashboard: true,
    });
    expect(await screen.findByText('Settings updated')).toBeInTheDocument();
  });

  it('takes a PNG logo from the file picker and sends it as a data URL', async () => {
    const api = installSettingsApi({ 'PUT /api/admin/settings/customize': echoCustomise });
    const { user, section } = await openBranding();
    await user.upload(within(section).getByLabelText('Choose a file for the Dark-mode logo'), png());
    expect(await within(section).findByRole('img', { name: 'Preview of the Dark-mode logo' })).toBeInTheDocument();
    await user.click(within(section).getByRole('button', { name: 'Save' }));

    await waitFor(() => expect(api.calls('PUT /api/admin/settings/customize')).toHaveLength(1));
    expect(api.calls('PUT /api/admin/settings/customize')[0]?.body).toMatchObject({
      Logo: 'data:image/png;base64,iVBORw==',
    });
  });

  it('takes a JPEG light-mode logo dropped onto its zone', async () => {
    const api = installSettingsApi({ 'PUT /api/admin/settings/customize': echoCustomise });
    const { user, section } = await openBranding();
    const jpeg = new File([new Uint8Array([0xff, 0xd8, 0xff])], 'brand.jpg', { type: 'image/jpeg' });
    fireEvent.drop(within(section).getByRole('group', { name: 'Light-mode logo' }), {
      dataTransfer: { files: [jpeg] },
    });
    expect(await within(section).findByRole('img', { name: 'Preview of the Light-mode logo' })).toBeInTheDocument();
    await user.click(within(section).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(api.calls('PUT /api/admin/settings/customize')).toHaveLength(1));
    expect(api.calls('PUT /api/admin/settings/customize')[0]?.body).toMatchObject({
      LightModeLogo: 'data:image/jpeg;base64,/9j/',
    });
  });

  it('refuses a file that is not PNG or JPEG, by picker or by drop, and keeps Save disabled', async () => {
    installSettingsApi();
    const { section } = await openBranding();
    const gif = new File([new Uint8Array([0x47, 0x49, 0x46])], 'brand.gif', { type: 'image/gif' });
    fireEvent.drop(within(section).getByRole('group', { name: 'Dark-mode logo' }), { dataTransfer: { files: [gif] } });
    expect(await within(section).findByText('The logo must be a PNG or JPEG image')).toBeInTheDocument();
    expect(within(section).queryByRole('img', { name: /Preview/ })).not.toBeInTheDocument();
    expect(within(section).getByRole('button', { name: 'Save' })).toBeDisabled();
  });

  it('removes a stored logo by sending null', async () => {
    const api = installSettingsApi(
      { 'PUT /api/admin/settings/customize': echoCustomise },
      { settings: settingsRecord({ Logo: STORED_LOGO }) },
    );
    const { user, section } = await openBranding();
    expect(within(section).getByRole('img', { name: 'Preview of the Dark-mode logo' })).toBeInTheDocument();
    expect(within(section).getByRole('button', { name: 'Remove the Light-mode logo' })).toBeDisabled();
    await user.click(within(section).getByRole('button', { name: 'Remove the Dark-mode logo' }));
    expect(within(section).queryByRole('img', { name: 'Preview of the Dark-mode logo' })).not.toBeInTheDocument();
    await user.click(within(section).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(api.calls('PUT /api/admin/settings/customize')).toHaveLength(1));
    expect(api.calls('PUT /api/admin/settings/customize')[0]?.body).toMatchObject({ Logo: null });
  });

  it('Cancel brings a removed logo back', async () => {
    installSettingsApi({}, { settings: settingsRecord({ Logo: STORED_LOGO }) });
    const { user, section } = await openBranding();
    await user.click(within(section).getByRole('button', { name: 'Remove the Dark-mode logo' }));
    await user.click(within(section).getByRole('button', { name: 'Cancel' }));
    expect(within(section).getByRole('img', { name: 'Preview of the Dark-mode logo' })).toBeInTheDocument();
    expect(within(section).getByRole('button', { name: 'Save' })).toBeDisabled();
  });

  it('saves the new user dashboard toggle with the stored branding', async () => {
    const api = installSettingsApi(
      { 'PUT /api/admin/settings/customize': echoCustomise },
      { settings: settingsRecord({ Accent: 'rose', Logo: STORED_LOGO }) },
    );
    signInAdmin();
    const { user } = renderApp('/admin/settings');
    const section = await findSection('UI');
    expect(within(section).getByRole('button', { name: 'Save' })).toBeDisabled();
    await user.click(within(section).getByRole('switch', { name: /^New user dashboard/ }));
    await user.click(within(section).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(api.calls('PUT /api/admin/settings/customize')).toHaveLength(1));
    expect(api.calls('PUT /api/admin/settings/customize')[0]?.body).toEqual({
      Accent: 'rose',
      HighAccessibility: false,
      NewUserDashboard: false,
    });
  });
});
