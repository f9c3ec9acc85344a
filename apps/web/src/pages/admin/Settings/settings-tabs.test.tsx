import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { signInAdmin } from '@/test-support/fixtures';
import { currentPath, renderApp } from '@/test-support/render-app';
import { findSection, findSettingsTab, installSettingsApi } from '@/test-support/screens/settings';

const TABS = ['Licence', 'Authentication', 'IP discovery', 'Kiosk session duration', 'Logging', 'Branding', 'UI'];

function openSettings(path = '/admin/settings') {
  installSettingsApi();
  signInAdmin();
  return renderApp(path);
}

const tabList = () => screen.getByRole('tablist', { name: 'Settings sections' });
const selectedTab = () => within(tabList()).getByRole('tab', { selected: true });

describe('settings: one tab per section', { timeout: 30_000 }, () => {
  it('shows the sections as tabs, Licence first, one section at a time', async () => {
    openSettings();
    await findSettingsTab('Licence');
    expect(
      within(tabList())
        .getAllByRole('tab')
        .map((tab) => tab.textContent),
    ).toEqual(TABS);
    expect(selectedTab()).toHaveTextContent('Licence');
    expect(await screen.findByRole('region', { name: 'Licence' })).toBeVisible();
    expect(screen.queryByRole('region', { name: 'Logging' })).not.toBeInTheDocument();
  });

  it('opens the tab the address names, and names the chosen tab in the address', async () => {
    const { user } = openSettings('/admin/settings?tab=branding');
    expect(await findSection('Branding')).toBeVisible();
    expect(selectedTab()).toHaveTextContent('Branding');

    await user.click(within(tabList()).getByRole('tab', { name: 'Logging' }));
    expect(await findSection('Logging')).toBeVisible();
    expect(currentPath()).toBe('/admin/settings?tab=logging');
    // The first tab needs no parameter.
    await user.click(within(tabList()).getByRole('tab', { name: 'Licence' }));
    await waitFor(() => expect(currentPath()).toBe('/admin/settings'));
  });

  it('opens Licence for a tab it does not have', async () => {
    openSettings('/admin/settings?tab=nonsense');
    await findSettingsTab('Licence');
    expect(selectedTab()).toHaveTextContent('Licence');
  });

  it('keeps edits left in a tab while another is open, marks that tab, and unmarks it on Cancel', async () => {
    const { user } = openSettings();
    let logging = await findSection('Logging');
    await user.type(within(logging).getByRole('textbox', { name: /GELF listener URL/ }), 'udp://graylog');
    expect(await findSettingsTab('Logging')).toHaveAccessibleName('Logging (Unsaved changes)');

    await user.click(within(tabList()).getByRole('tab', { name: 'Kiosk session duration' }));
    await findSection('Kiosk session duration');
    expect(screen.queryByRole('region', { name: 'Logging' })).not.toBeInTheDocument();
    // The other tabs are not marked: only the one holding the edit.
    expect(within(tabList()).getByRole('tab', { name: 'Kiosk session duration' })).toHaveAccessibleName(
      'Kiosk session duration',
    );

    logging = await findSection('Logging');
    expect(within(logging).getByRole('textbox', { name: /GELF listener URL/ })).toHaveValue('udp://graylog');
    await user.click(within(logging).getByRole('button', { name: 'Cancel' }));
    await waitFor(() =>
      expect(within(tabList()).getByRole('tab', { name: 'Logging' })).toHaveAccessibleName('Logging'),
    );
  });
});
