import { Button } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { FormError } from '../../../components/FormError';
import { renderError } from '../../../lib/api/render-error';
import type { Area } from '../../../lib/area';
import { useSecondFactor } from '../use-second-factor';

/** "Do this next time" on the choice, for an admin whose enrolment may be postponed. */
export function DeferEnrolmentButton({ realm }: { realm: Area }) {
  const { t } = useTranslation();
  const secondFactor = useSecondFactor(realm);
  return (
    <>
      {secondFactor.error === null ? null : <FormError message={renderError(secondFactor.error, t)} />}
      <Button variant="subtle" fullWidth loading={secondFactor.pending === 'defer'} onClick={secondFactor.defer}>
        {t('twoFactor.deferEnrolment')}
      </Button>
    </>
  );
}
