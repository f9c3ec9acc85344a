import { Alert } from '@mantine/core';
import { IconInfoCircle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { FormError } from '../../../components/FormError';
import { ceremonyCancelled, ceremonyFailureText } from '../ceremony';

/**
 * What a passkey ceremony that did not succeed leaves on the page: a calm note when the person
 * closed the prompt (nothing is wrong, other ways remain), the error line otherwise. Nothing
 * when `error` is null.
 */
export function CeremonyOutcome({ error }: { error: unknown }) {
  const { t } = useTranslation();
  if (error === null || error === undefined) return null;
  if (ceremonyCancelled(error)) {
    return (
      <Alert color="gray" variant="light" role="status" icon={<IconInfoCircle aria-hidden />}>
        {t('passkey.cancelled')}
      </Alert>
    );
  }
  return <FormError message={ceremonyFailureText(error, t)} />;
}
