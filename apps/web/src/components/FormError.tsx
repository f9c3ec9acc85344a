import { Alert } from '@mantine/core';
import { IconAlertCircle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';

/** The login pages' error line, "Error: {message}", announced to screen readers. */
export function FormError({ message }: { message: string }) {
  const { t } = useTranslation();
  return (
    <Alert color="red" variant="light" role="alert" icon={<IconAlertCircle aria-hidden />}>
      {t('login.errorMessage', { message })}
    </Alert>
  );
}
