import { Stack } from '@mantine/core';
import type { Area } from '../../../lib/area';
import { PasskeySecondFactorButton } from '../../passkeys/components/PasskeySecondFactorButton';
import { useSecondFactor } from '../use-second-factor';
import { BackToLogin } from './BackToLogin';
import { CodeForm } from './CodeForm';

/** TwoFactor and AdminTwoFactor: a code from the enrolled authenticator, or a passkey, finishes the sign-in. */
export function TwoFactorVerification({ realm }: { realm: Area }) {
  const secondFactor = useSecondFactor(realm);
  return (
    <Stack>
      <CodeForm pending={secondFactor.pending !== null} error={secondFactor.error} onSubmit={secondFactor.submitCode} />
      <PasskeySecondFactorButton realm={realm} />
      <BackToLogin realm={realm} />
    </Stack>
  );
}
