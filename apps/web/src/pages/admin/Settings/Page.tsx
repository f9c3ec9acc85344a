import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { Tabs, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import type { SettingsRecord } from '@postern/protocol';
import { AdminPage } from '@/components/AdminPage';
import { QueryState } from '@/components/QueryState';
import { routeTitleKey, type RoutePageProps } from '@/app/routes/route-types';
import { useSettingsRecord } from '@/features/settings/api';
import { AuthenticationSection } from '@/features/settings/components/AuthenticationSection';
import { BrandingSection } from '@/features/settings/components/BrandingSection';
import { IpDiscoverySection } from '@/features/settings/components/IpDiscoverySection';
import { KioskSection } from '@/features/settings/components/KioskSection';
import { LicenceSection } from '@/features/settings/components/LicenceSection';
import { LoggingSection } from '@/features/settings/components/LoggingSection';
import { UiSection } from '@/features/settings/components/UiSection';
import { SETTINGS_TABS, settingsTabOf, type SettingsTab } from '@/features/settings/settings-tabs';
import { UnsavedChangesScope } from '@/features/settings/unsaved-changes';

/**
 * The section of each tab: Licence and Authentication load their own data; the others are parts of
 * the settings record, loaded once for all of them.
 */
const SECTIONS: Record<SettingsTab, { own: ReactNode } | { ofRecord: (record: SettingsRecord) => ReactNode }> = {
  licence: { own: <LicenceSection /> },
  authentication: { own: <AuthenticationSection /> },
  'ip-discovery': { ofRecord: (record) => <IpDiscoverySection record={record} /> },
  kiosk: { ofRecord: (record) => <KioskSection record={record} /> },
  logging: { ofRecord: (record) => <LoggingSection record={record} /> },
  branding: { ofRecord: (record) => <BrandingSection record={record} /> },
  ui: { ofRecord: (record) => <UiSection record={record} /> },
};

/** The tabs that hold unsaved edits, from what their forms report (see unsaved-changes.tsx). */
function useUnsavedTabs() {
  const [unsaved, setUnsaved] = useState<Record<string, true>>({});
  const reportFor = useCallback(
    (tab: SettingsTab) => (formId: string, dirty: boolean) =>
      setUnsaved((current) => {
        const key = `${tab} ${formId}`;
        if (dirty === key in current) return current;
        const next = { ...current };
        if (dirty) next[key] = true;
        else delete next[key];
        return next;
      }),
    [],
  );
  const isUnsaved = (tab: SettingsTab) => Object.keys(unsaved).some((key) => key.startsWith(`${tab} `));
  return { reportFor, isUnsaved, any: Object.keys(unsaved).length > 0 };
}

/** Reporters per tab, made once: a new function each render would re-run every form's report. */
function useReporters(reportFor: (tab: SettingsTab) => (formId: string, dirty: boolean) => void) {
  const [reporters] = useState(
    () =>
      Object.fromEntries(SETTINGS_TABS.map((tab) => [tab.id, reportFor(tab.id)])) as Record<
        SettingsTab,
        ReturnType<typeof reportFor>
      >,
  );
  return reporters;
}

/**
 * Settings (`/admin/settings`), spec §2: Licence, Authentication, IP discovery, kiosk session
 * duration, logging, branding and UI, one tab each (`?tab=branding` opens that one), each saved on
 * its own with Save and Cancel enabled only when it changed. Every tab stays mounted, so edits left
 * in one while looking at another are kept; the tab is marked as unsaved, and leaving the page with
 * such edits asks first. Licence and authentication load separately, so one failing never hides the
 * others.
 */
export default function SettingsPage({ route }: RoutePageProps) {
  const { t } = useTranslation();
  const settings = useSettingsRecord();
  const [params, setParams] = useSearchParams();
  const active = settingsTabOf(params.get('tab'));
  const { reportFor, isUnsaved, any } = useUnsavedTabs();
  const reporters = useReporters(reportFor);

  useEffect(() => {
    if (!any) return;
    // The browser's own "Leave site?" question, for a reload or a closed tab with edits unsaved.
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [any]);

  const choose = (tab: string | null) => {
    const next = settingsTabOf(tab);
    setParams(
      (current) => {
        const updated = new URLSearchParams(current);
        if (next === SETTINGS_TABS[0].id) updated.delete('tab');
        else updated.set('tab', next);
        return updated;
      },
      { replace: true },
    );
  };

  return (
    <AdminPage title={t(routeTitleKey(route.id))}>
      <Tabs value={active} onChange={choose} keepMounted maw={960}>
        <Tabs.List aria-label={t('settingsScreen.tabs.label')} mb="lg">
          {SETTINGS_TABS.map((tab) => (
            <Tabs.Tab
              key={tab.id}
              value={tab.id}
              // The dot is for the eye; the name says it: "Logging (Unsaved changes)".
              aria-label={isUnsaved(tab.id) ? `${t(tab.title)} (${t('settingsScreen.tabs.unsaved')})` : undefined}
              rightSection={
                isUnsaved(tab.id) ? (
                  <Text span c="orange" fw={700} aria-hidden title={t('settingsScreen.tabs.unsaved')}>
                    ●
                  </Text>
                ) : null
              }
            >
              {t(tab.title)}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        {SETTINGS_TABS.map((tab) => {
          const section = SECTIONS[tab.id];
          return (
            <Tabs.Panel key={tab.id} value={tab.id}>
              <UnsavedChangesScope report={reporters[tab.id]}>
                {'own' in section ? (
                  section.own
                ) : (
                  <QueryState data={settings.data} isError={settings.isError} error={settings.error}>
                    {(record) => section.ofRecord(record)}
                  </QueryState>
                )}
              </UnsavedChangesScope>
            </Tabs.Panel>
          );
        })}
      </Tabs>
    </AdminPage>
  );
}
