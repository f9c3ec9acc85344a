import { Button, Divider, Stack } from '@mantine/core';
import { IconFingerprint } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { Area } from '../../../lib/area';
import { usePasskeySecondFactor } from '../use-passkey-second-factor';
import { CeremonyOutcome } from './CeremonyOutcome';

/**
 * "Use a passkey" on the second-factor screen, beneath the code form; nothing when the account has
 * no passkeys or the browser cannot use them.
 */
export function PasskeySecondFactorButton({ realm }: { realm: Area }) {
  const { t } = useTranslation();
  const passkey = usePasskeySecondFactor(realm);
  if (!passkey.offered) return null;
  return (
    <Stack gap="xs">
      <Divider label={t('passkey.or')} labelPosition="center" />
      <Button
        variant="default"
        fullWidth
        leftSection={<IconFingerprint size={18} aria-hidden />}
        loading={passkey.pending}
        onClick={passkey.start}
      >
        {t('passkey.useForSecondFactor')}
      </Button>
      <CeremonyOutcome error={passkey.error} />
    </Stack>
  );
}
