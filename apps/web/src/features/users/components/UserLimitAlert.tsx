import { Alert } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { UserLimitNotice } from '../user-limit';

/**
 * The Users screen's licence notice (spec §2, §5, §8). Over the limit with grace left (and no SAML
 * users): how many more users may be created. At the limit plus overage: err.userLimitReached, with
 * the percentage and the limit, in place of creating users.
 */
export function UserLimitAlert({ notice }: { notice: UserLimitNotice }) {
  const { t } = useTranslation();
  if (notice.kind === 'none') return null;
  const icon = <IconAlertTriangle size={20} aria-hidden />;
  if (notice.kind === 'grace') {
    return (
      <Alert color="yellow" icon={icon} title={t('usersScreen.licence.overLimitTitle')} role="alert">
        {t('usersScreen.licence.overLimitGrace', notice)}
      </Alert>
    );
  }
  return (
    <Alert color="red" icon={icon} title={t('err.userLimitReached')} role="alert">
      {notice.showBanner ? `${t('usersScreen.licence.overLimitBlocked', notice)} ` : null}
      {t('usersScreen.licence.reachedDetail', notice)}
    </Alert>
  );
}
