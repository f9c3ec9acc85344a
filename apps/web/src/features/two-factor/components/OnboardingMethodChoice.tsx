import { Stack, Title } from '@mantine/core';
import { IconDeviceMobile, IconFingerprint } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { Area } from '../../../lib/area';
import { BackToLogin } from './BackToLogin';
import { DeferEnrolmentButton } from './DeferEnrolmentButton';
import { OnboardingChoiceButton } from './OnboardingChoiceButton';

/** The second factors a sign-in can set up. */
export type OnboardingMethod = 'passkey' | 'app';

/** Props of {@link OnboardingMethodChoice}. */
export interface OnboardingMethodChoiceProps {
  realm: Area;
  deferable: boolean;
  onChoose: (method: OnboardingMethod) => void;
}

/** The two ways to a second factor, each with what it asks of the person. */
export function OnboardingMethodChoice({ onChoose, deferable, realm }: OnboardingMethodChoiceProps) {
  const { t } = useTranslation();
  return (
    <Stack>
      <Title order={2} size="h4">
        {t('passkey.choice.heading')}
      </Title>
      <OnboardingChoiceButton
        icon={<IconFingerprint size={22} aria-hidden />}
        label={t('passkey.choice.passkey')}
        hint={t('passkey.choice.passkeyHint')}
        onClick={() => onChoose('passkey')}
      />
      <OnboardingChoiceButton
        icon={<IconDeviceMobile size={22} aria-hidden />}
        label={t('passkey.choice.app')}
        hint={t('passkey.choice.appHint')}
        onClick={() => onChoose('app')}
      />
      {deferable ? <DeferEnrolmentButton realm={realm} /> : null}
      <BackToLogin realm={realm} />
    </Stack>
  );
}
