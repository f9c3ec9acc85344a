import { useQueryClient } from '@tanstack/react-query';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import type { Area } from '../../lib/area';
import { completeSignIn, usePendingSignInStep } from '../two-factor/use-second-factor';
import { registerPasskey } from './webauthn-api';

/** What the onboarding screen needs from a passkey enrolment. */
export interface PasskeyEnrolment {
  enrol: (name: string) => void;
  pending: boolean;
  /** The last failure (a cancelled prompt included), or null. */
  error: unknown;
}

/**
 * Enrols a passkey as the second factor a sign-in still owes. The server's `Enrolled` replaces the
 * pending session with a full one, exactly as a TOTP enrolment does, so the person lands on their
 * home at once, told that the passkey is set up.
 */
export function usePasskeyEnrolment(realm: Area): PasskeyEnrolment {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const step = usePendingSignInStep(realm, async (name: string) => {
    await registerPasskey(realm, name, true);
    const destination = await completeSignIn(realm, queryClient);
    // Said here, as the TOTP enrolment does: storing the session can unmount this screen.
    notifications.show({ color: 'green', message: t('passkey.enrolled') });
    return destination;
  });
  return { enrol: step.run, pending: step.pending, error: step.error };
}
