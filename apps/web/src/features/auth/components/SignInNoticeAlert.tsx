import { Alert } from '@mantine/core';
import { IconCircleCheck } from '@tabler/icons-react';
import { useLocation } from 'react-router';
import { useTranslation } from 'react-i18next';
import { signInNoticeKey } from '../sign-in-notice';

/** The good news another page sent to this login page (see sign-in-notice.ts), if any. */
export function SignInNoticeAlert() {
  const { t } = useTranslation();
  const key = signInNoticeKey(useLocation().state);
  if (key === null) return null;
  return (
    <Alert color="green" variant="light" role="status" icon={<IconCircleCheck aria-hidden />}>
      {t(key)}
    </Alert>
  );
}
