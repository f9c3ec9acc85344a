import { useTranslation } from 'react-i18next';
import type { Area } from '../../../lib/area';
import { usePasskeyEnrolment } from '../use-passkey-enrolment';
import { CeremonyOutcome } from './CeremonyOutcome';
import { PasskeyNameForm } from './PasskeyNameForm';

/** The onboarding's passkey way: a name, then the browser's prompt; success finishes the sign-in. */
export function PasskeyEnrolmentForm({ realm }: { realm: Area }) {
  const { t } = useTranslation();
  const enrolment = usePasskeyEnrolment(realm);
  return (
    <PasskeyNameForm
      submitLabel={t('passkey.create')}
      pending={enrolment.pending}
      onSubmit={enrolment.enrol}
      initialName={t('passkey.name.suggestion')}
      outcome={<CeremonyOutcome error={enrolment.error} />}
    />
  );
}
