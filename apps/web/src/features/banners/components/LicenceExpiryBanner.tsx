import { Alert, Text } from '@mantine/core';
import { IconCalendarExclamation } from '@tabler/icons-react';
import type { AdminStatus } from '@postern/protocol';
import { useTranslation } from 'react-i18next';
import { intlLocaleFor } from '@/i18n/i18n';
import { useNow } from '../../../lib/time/use-now';
import { licenceExpiryWarning } from '../licence-usage';

/** Days left change at most once a day; a minute's tick keeps a page left open overnight honest. */
const EXPIRY_TICK_MS = 60_000;

/**
 * The admin home's "licence expires soon" banner (spec: shown when not cloud and the licence expires
 * within LICENCE_EXPIRY_WARNING_DAYS days). Not dismissible: the spec gives it no close button, and
 * it appears only on the home page.
 */
export function LicenceExpiryBanner({ status }: { status: Pick<AdminStatus, 'Cloud' | 'Licensing'> }) {
  const { t, i18n } = useTranslation();
  const now = useNow(EXPIRY_TICK_MS);
  const warning = licenceExpiryWarning(status, now);
  if (warning === null) return null;

  const date = new Intl.DateTimeFormat(intlLocaleFor(i18n.resolvedLanguage), { dateStyle: 'long' }).format(
    new Date(warning.expires),
  );
  return (
    <Alert color="orange" icon={<IconCalendarExclamation aria-hidden />} title={t('banners.licenceExpiry.title')}>
      <Text size="sm">
        {warning.days === 1
          ? t('banners.licenceExpiry.bodyOneDay', { date })
          : t('banners.licenceExpiry.body', { days: warning.days, date })}
      </Text>
    </Alert>
  );
}
