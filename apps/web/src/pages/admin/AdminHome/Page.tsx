import { useEffect } from 'react';
import { Stack, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { QueryState } from '@/components/QueryState';
import { routeTitleKey, type RoutePageProps } from '../../../app/routes/route-types';
import { LicenceExpiryBanner } from '../../../features/banners/components/LicenceExpiryBanner';
import { useAdminStatus } from '../../../features/status/api';
import { FirstRunChecklist } from './components/FirstRunChecklist';
import { RecentActivity } from './components/RecentActivity';
import { StatusCounters } from './components/StatusCounters';

/** /admin/home: the licence expiry notice, the first-run checklist, counters and recent activity, refreshed every 30 seconds. */
export default function AdminHomePage({ route }: RoutePageProps) {
  const { t } = useTranslation();
  const status = useAdminStatus({ live: true });
  const { data, error, failureCount } = status;
  const refreshFailed = data !== undefined && error !== null;

  useEffect(() => {
    // Spec: a failed refresh is only logged; the page keeps showing the last answer.
    // eslint-disable-next-line no-console -- the spec asks for exactly this: a log line, nothing on screen
    if (refreshFailed) console.warn('Admin status refresh failed', error);
  }, [refreshFailed, error, failureCount]);

  return (
    <Stack>
      <Title order={1}>{t(routeTitleKey(route.id))}</Title>
      <QueryState data={data} isError={status.isError} error={error}>
        {(current) => (
          <>
            <LicenceExpiryBanner status={current} />
            <FirstRunChecklist status={current} />
            <StatusCounters status={current} />
            <RecentActivity entries={current.Activity} />
          </>
        )}
      </QueryState>
    </Stack>
  );
}
