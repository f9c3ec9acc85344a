import { Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
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

/**
 * Settings (`/admin/settings`), spec §2: Licence, Authentication, IP discovery, kiosk session
 * duration, logging, branding and UI, each saved on its own with Save and Cancel enabled only when
 * it changed. Licence and authentication load separately, so one failing never hides the others.
 */
export default function SettingsPage({ route }: RoutePageProps) {
  const { t } = useTranslation();
  const settings = useSettingsRecord();
  return (
    <AdminPage title={t(routeTitleKey(route.id))}>
      <Stack gap="lg" maw={960}>
        <LicenceSection />
        <AuthenticationSection />
        <QueryState data={settings.data} isError={settings.isError} error={settings.error}>
          {(record) => (
            <>
              <IpDiscoverySection record={record} />
              <KioskSection record={record} />
              <LoggingSection record={record} />
              <BrandingSection record={record} />
              <UiSection record={record} />
            </>
          )}
        </QueryState>
      </Stack>
    </AdminPage>
  );
}
