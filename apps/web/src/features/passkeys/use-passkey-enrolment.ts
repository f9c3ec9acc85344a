import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { ErrorCodes } from '@postern/protocol';
import { hasErrorCode } from '../../lib/api/api-error';
import type { Area } from '../../lib/area';
import { completeSignIn, useLeavePendingSignIn } from '../two-factor/use-second-factor';
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
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const leave = useLeavePendingSignIn(realm);
  const [error, setError] = useState<unknown>(null);
  const mutation = useMutation({
    mutationFn: async (name: string) => {
      await registerPasskey(realm, name, true);
      const destination = await completeSignIn(realm, queryClient);
      // Said here, as the TOTP enrolment does: storing the session can unmount this screen.
      notifications.show({ color: 'green', message: t('passkey.enrolled') });
      return destination;
    },
  });

  const enrol = (name: string) => {
    setError(null);
    mutation.mutate(name, {
      onSuccess: ({ to }) => void navigate(to, { replace: true }),
      onError: (failure) => {
        if (hasErrorCode(failure, ErrorCodes.invalidSession)) leave();
        else setError(failure);
      },
    });
  };

  return { enrol, pending: mutation.isPending, error };
}
