import { Button, Stack } from '@mantine/core';
import { IconFingerprint } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { PasswordlessSignIn } from '../use-passwordless-sign-in';
import { CeremonyOutcome } from './CeremonyOutcome';

/** Props of {@link PasskeySignInButton}. */
export interface PasskeySignInButtonProps {
  signIn: PasswordlessSignIn;
  /** Called as the sign-in starts (the user login preloads the pages it lands on). */
  onStart?: () => void;
}

/** "Sign in with a passkey", with what a ceremony that did not succeed left to say beneath it. */
export function PasskeySignInButton({ signIn, onStart }: PasskeySignInButtonProps) {
  const { t } = useTranslation();
  return (
    <Stack gap="xs">
      <Button
        variant="default"
        size="md"
        fullWidth
        leftSection={<IconFingerprint size={18} aria-hidden />}
        styles={{ label: { whiteSpace: 'normal', textAlign: 'center' } }}
        loading={signIn.pending}
        onClick={() => {
          onStart?.();
          signIn.start();
        }}
      >
        {t('passkey.signIn')}
      </Button>
      <CeremonyOutcome error={signIn.error} />
    </Stack>
  );
}
