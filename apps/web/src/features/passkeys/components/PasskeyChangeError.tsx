import { Alert } from '@mantine/core';
import { IconLock } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { ErrorCodes, PASSKEY_CHANGE_WINDOW_MINUTES } from '@postern/protocol';
import { hasErrorCode } from '../../../lib/api/api-error';
import { CeremonyOutcome } from './CeremonyOutcome';

/**
 * What a refused change to one's passkeys says. The recent-sign-in rule gets an explanation of its
 * own: it is no fault, the session is just too old to change a factor, and signing in again helps.
 */
export function PasskeyChangeError({ error }: { error: unknown }) {
  const { t } = useTranslation();
  if (hasErrorCode(error, ErrorCodes.recentSignInRequired)) {
    return (
      <Alert color="yellow" variant="light" role="alert" icon={<IconLock aria-hidden />}>
        {t('passkey.manage.recentSignIn', { minutes: PASSKEY_CHANGE_WINDOW_MINUTES })}
      </Alert>
    );
  }
  return <CeremonyOutcome error={error} />;
}
