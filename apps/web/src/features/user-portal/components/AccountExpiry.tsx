import dayjs from 'dayjs';
import { useTranslation } from 'react-i18next';
import { useNow } from '../../../lib/time/use-now';
import { daysUntil } from '../countdown';

/** How often the expiry line is brought up to date: days change slowly. */
const REFRESH_MS = 60_000;

/** 'Your account expires in N days' (spec §2), with the exact date on hover. */
export function AccountExpiry({ validUntil }: { validUntil: string }) {
  const { t } = useTranslation();
  const days = daysUntil(validUntil, useNow(REFRESH_MS));
  const text =
    days === 0
      ? t('home.accountExpiresToday')
      : days === 1
        ? t('home.accountExpiresOneDay')
        : t('home.accountExpiresDays', { days });
  return (
    <time dateTime={validUntil} title={dayjs(validUntil).format('LLL')}>
      {text}
    </time>
  );
}
