/** The Settings screen's tabs in their order, each one section, with the i18n key of its name. */
export const SETTINGS_TABS = [
  { id: 'licence', title: 'settingsScreen.licence.title' },
  { id: 'authentication', title: 'settingsScreen.authentication.title' },
  { id: 'ip-discovery', title: 'settingsScreen.ipDiscovery.title' },
  { id: 'kiosk', title: 'settingsScreen.kiosk.title' },
  { id: 'logging', title: 'settingsScreen.logging.title' },
  { id: 'branding', title: 'settingsScreen.branding.title' },
  { id: 'ui', title: 'settingsScreen.ui.title' },
] as const;

export type SettingsTab = (typeof SETTINGS_TABS)[number]['id'];

/** The tab a `?tab=` value names; the first (Licence) for none or one this screen does not have. */
export function settingsTabOf(value: string | null): SettingsTab {
  return SETTINGS_TABS.find((tab) => tab.id === value)?.id ?? SETTINGS_TABS[0].id;
}
