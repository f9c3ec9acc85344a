import { useTranslation } from 'react-i18next';
import { routeTitleKey, type RouteId, type RoutePageProps } from '@/app/routes/route-types';
import { AdminPage } from '@/components/AdminPage';
import { FullPageLoader } from '@/components/FullPageLoader';
import { ApplicationKnocWizard } from '@/features/knoc-wizard/ApplicationKnocWizard';
import { KnocWizard } from '@/features/knoc-wizard/KnocWizard';
import { NoLicenceNotice, useKnocsLicensed } from '@/features/knoc-wizard/NoLicenceNotice';
import type { KnocWizardDefinition } from '@/features/knoc-wizard/wizards/definition';
import { linuxWizard } from '@/features/knoc-wizard/wizards/linux';
import { proxyWizard } from '@/features/knoc-wizard/wizards/proxy';
import { scriptWizard } from '@/features/knoc-wizard/wizards/script';

const WIZARDS: Partial<Record<RouteId, KnocWizardDefinition>> = {
  knocsNewLinux: linuxWizard,
  knocsNewProxy: proxyWizard,
  knocsNewScript: scriptWizard,
};

/**
 * The Linux, application, proxy and script wizards (`/admin/knocs/new/{linux,application,proxy,script}`),
 * each under its route's title; without a licence, the no-licence message instead. The application
 * wizard has a state and a create answer of its own (its key and allowlist address).
 */
export default function KnocWizardPage({ route }: RoutePageProps) {
  const { t } = useTranslation();
  const { known, licensed } = useKnocsLicensed();
  const definition = WIZARDS[route.id] ?? linuxWizard;
  return (
    <AdminPage title={t(routeTitleKey(route.id))}>
      {!known ? (
        <FullPageLoader />
      ) : !licensed ? (
        <NoLicenceNotice />
      ) : route.id === 'knocsNewApplication' ? (
        <ApplicationKnocWizard />
      ) : (
        <KnocWizard key={route.id} definition={definition} />
      )}
    </AdminPage>
  );
}
