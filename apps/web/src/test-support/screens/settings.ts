import {
  AgentListResponse,
  AuthenticationSettingsResponse,
  LicenceStatusResponse,
  SettingsResponse,
  type AuthenticationSettings,
  type LicenceStatus,
  type SettingsRecord,
} from '@postern/protocol';
import { fireEvent, screen } from '@testing-library/react';
import { authenticationSettings, settingsRecord, unlicensed } from '../records/settings';
import { data, installTypedFakeApi, type FakeRoute, type TypedHandler } from '../typed-fake-api';

/** The fake server of the Settings screen: its three reads, plus whatever a test adds. */
export function installSettingsApi(
  routes: Partial<Record<FakeRoute, TypedHandler>> = {},
  initial: { settings?: SettingsRecord; authentication?: AuthenticationSettings; licence?: LicenceStatus } = {},
) {
  return installTypedFakeApi({
    'GET /api/admin/settings': data(SettingsResponse, initial.settings ?? settingsRecord()),
    'GET /api/admin/settings/authentication': data(
      AuthenticationSettingsResponse,
      initial.authentication ?? authenticationSettings(),
    ),
    'GET /api/admin/settings/license': data(LicenceStatusResponse, initial.licence ?? unlicensed()),
    // The banner area asks for the agents once a licence is installed.
    'GET /api/admin/agents': data(AgentListResponse, []),
    ...routes,
  });
}

/** The Settings screen's tab of the section named `name` (its name may add "(Unsaved changes)"). */
export const findSettingsTab = (name: string) =>
  screen.findByRole('tab', { name: (text) => text === name || text.startsWith(`${name} (`) }, { timeout: 10_000 });

/**
 * The settings page's section named `name`, once the lazily loaded page has come: its tab is chosen
 * first, as an admin would (each section has a tab of its own).
 */
export async function findSection(name: string): Promise<HTMLElement> {
  const tab = await findSettingsTab(name);
  if (tab.getAttribute('aria-selected') !== 'true') fireEvent.click(tab);
  return screen.findByRole('region', { name }, { timeout: 5000 });
}
