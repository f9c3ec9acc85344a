import { useState } from 'react';
import { Anchor, Center, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { Area } from '../../../lib/area';
import { passkeysSupported } from '../../passkeys/ceremony';
import { PasskeyEnrolmentForm } from '../../passkeys/components/PasskeyEnrolmentForm';
import { AuthenticatorAppEnrolment } from './AuthenticatorAppEnrolment';
import { BackToLogin } from './BackToLogin';
import { OnboardingMethodChoice, type OnboardingMethod } from './OnboardingMethodChoice';

/** Props of {@link TwoFactorOnboarding}. */
export interface TwoFactorOnboardingProps {
  realm: Area;
  /** Offer "Do this next time" (an admin whose enrolment the server lets them postpone). */
  deferable?: boolean;
}

/**
 * TwoFactorOnboard and AdminTwoFactorOnboard: the second factor a sign-in must set up. Where the
 * browser can use passkeys, the person first picks a passkey or an authenticator app; elsewhere
 * the app's enrolment starts at once (no secret is made before it is wanted).
 */
export function TwoFactorOnboarding({ realm, deferable = false }: TwoFactorOnboardingProps) {
  const { t } = useTranslation();
  const [supported] = useState(passkeysSupported);
  const [method, setMethod] = useState<OnboardingMethod | null>(null);
  const chooseAgain = (
    <Center>
      <Anchor component="button" type="button" size="sm" onClick={() => setMethod(null)}>
        {t('passkey.choice.back')}
      </Anchor>
    </Center>
  );

  if (!supported || method === 'app') {
    return <AuthenticatorAppEnrolment realm={realm} deferable={deferable} footer={supported ? chooseAgain : null} />;
  }
  if (method === 'passkey') {
    return (
      <Stack>
        <PasskeyEnrolmentForm realm={realm} />
        {chooseAgain}
        <BackToLogin realm={realm} />
      </Stack>
    );
  }
  return <OnboardingMethodChoice realm={realm} deferable={deferable} onChoose={setMethod} />;
}
