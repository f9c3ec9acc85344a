import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { routeTitleKey, type RoutePageProps } from '@/app/routes/route-types';
import type { RouteId } from '@/lib/route-paths';
import { AdminPage } from '@/components/AdminPage';
import { FullPageLoader } from '@/components/FullPageLoader';
import { ApplicationKnocWizard } from '@/features/knoc-wizard/ApplicationKnocWizard';
import { KnocWizard } from '@/features/knoc-wizard/KnocWizard';
import { NoLicenceNotice, useKnocsLicensed } from '@/features/knoc-wizard/NoLicenceNotice';
import { ScriptVendorNotice } from '@/features/knoc-wizard/ScriptVendorNotice';
import type { KnocWizardDefinition } from '@/features/knoc-wizard/wizards/definition';
import { linuxWizard } from '@/features/knoc-wizard/wizards/linux';
import { proxyWizard } from '@/features/knoc-wizard/wizards/proxy';
import { scriptWizard } from '@/features/knoc-wizard/wizards/script';
import {
  SCRIPT_VENDOR_PARAM,
  scriptVendorCommand,
  scriptVendorOf,
} from '@/features/knoc-wizard/wizards/script-vendors';

const WIZARDS: Partial<Record<RouteId, KnocWizardDefinition>> = {
  knocsNewLinux: linuxWizard,
  knocsNewProxy: proxyWizard,
  knocsNewScript: scriptWizard,
};

/**
 * The Linux, application, proxy and script wizards (`/admin/knocs/new/{linux,application,proxy,script}`),
 * each under its route's title; without a licence, the no-licence message instead. The application
 * wizard has a state and a create answer of its own (its key and allowlist address). The script
 * wizard started for a vendor without a driver (`?vendor=juniper`) starts with that vendor's script.
 */
export default function KnocWizardPage({ route }: RoutePageProps) {
  const { t } = useTranslation();
  const { known, licensed } = useKnocsLicensed();
  const definition = WIZARDS[route.id] ?? linuxWizard;
  const [search] = useSearchParams();
  const vendor = route.id === 'knocsNewScript' ? scriptVendorOf(search.get(SCRIPT_VENDOR_PARAM)) : null;
  return (
    <AdminPage title={t(routeTitleKey(route.id))}>
      {!known ? (
        <FullPageLoader />
      ) : !licensed ? (
        <NoLicenceNotice />
      ) : route.id === 'knocsNewApplication' ? (
        <ApplicationKnocWizard />
      ) : vendor !== null ? (
        <>
          <ScriptVendorNotice vendor={vendor} />
          <KnocWizard
            key={`${route.id}-${vendor}`}
            definition={definition}
            preset={{ Backend: { Command: scriptVendorCommand(vendor) } }}
          />
        </>
      ) : (
        <KnocWizard key={route.id} definition={definition} />
      )}
    </AdminPage>
  );
}
