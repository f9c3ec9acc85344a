import { useEffect, type ReactNode } from 'react';
import { Button, Center, Group, Loader, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ErrorCodes } from '@postern/protocol';
import { FormError } from '../../../components/FormError';
import { hasErrorCode } from '../../../lib/api/api-error';
import { renderError } from '../../../lib/api/render-error';
import type { Area } from '../../../lib/area';
import { useOtpSecret } from '../api';
import { useLeavePendingSignIn, useSecondFactor } from '../use-second-factor';
import { BackToLogin } from './BackToLogin';
import { CodeForm } from './CodeForm';
import { EnrolmentSecret } from './EnrolmentSecret';

/** Props of {@link AuthenticatorAppEnrolment}. */
export interface AuthenticatorAppEnrolmentProps {
  realm: Area;
  /** Offer "Do this next time" (an admin whose enrolment the server lets them postpone). */
  deferable?: boolean;
  /** Below the form, above "Back to sign in" ("Choose another way" when a passkey was offered too). */
  footer?: ReactNode;
}

/**
 * The onboarding's authenticator-app way: a new secret as QR code and text, then a code from
 * the app to prove it is set up, which also finishes the sign-in (as does a deferred admin
 * enrolment): the person goes straight in, never asked for a second code.
 */
export function AuthenticatorAppEnrolment({ realm, deferable = false, footer }: AuthenticatorAppEnrolmentProps) {
  const { t } = useTranslation();
  const secret = useOtpSecret(realm);
  const secondFactor = useSecondFactor(realm);
  const leave = useLeavePendingSignIn(realm);
  const expired = hasErrorCode(secret.error, ErrorCodes.invalidSession);

  useEffect(() => {
    if (expired) leave();
  }, [expired, leave]);

  if (secret.isPending || expired) {
    return (
      <Center py="xl" role="status" aria-label={t('app.loading')}>
        <Loader />
      </Center>
    );
  }

  if (secret.isError) {
    // 'Already verified 2FA' (or any other refusal): say so, and offer the way back. Asking again
    // only helps with a passing fault, not when there is nothing (left) to enrol.
    const canRetry = ![ErrorCodes.alreadyVerified2fa, ErrorCodes.userAlreadyVerified].some((code) =>
      hasErrorCode(secret.error, code),
    );
    return (
      <Stack>
        <FormError message={renderError(secret.error, t)} />
        {canRetry ? (
          <Group justify="center">
            <Button variant="default" onClick={() => void secret.refetch()}>
              {t('twoFactor.retry')}
            </Button>
          </Group>
        ) : null}
        {footer}
        <BackToLogin realm={realm} />
      </Stack>
    );
  }

  return (
    <Stack>
      <EnrolmentSecret secret={secret.data} />
      <CodeForm
        pending={secondFactor.pending === 'code'}
        error={secondFactor.error}
        onSubmit={secondFactor.submitCode}
        secondaryAction={
          deferable ? (
            <Button
              variant="default"
              fullWidth
              loading={secondFactor.pending === 'defer'}
              disabled={secondFactor.pending === 'code'}
              onClick={secondFactor.defer}
            >
              {t('twoFactor.deferEnrolment')}
            </Button>
          ) : null
        }
      />
      {footer}
      <BackToLogin realm={realm} />
    </Stack>
  );
}
