import { Center, Divider, Loader, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { MAX_PASSKEYS_PER_ACCOUNT } from '@postern/protocol';
import { FormError } from '../../../components/FormError';
import { renderError } from '../../../lib/api/render-error';
import type { Area } from '../../../lib/area';
import { useOwnPasskeys } from '../webauthn-api';
import { AddPasskey } from './AddPasskey';
import { PasskeyRow } from './PasskeyRow';

/** The account's passkeys as a list, each with its actions, and "Add a passkey" below while under the limit. */
export function PasskeysPanel({ realm }: { realm: Area }) {
  const { t } = useTranslation();
  const passkeys = useOwnPasskeys(realm);
  if (passkeys.isPending) {
    return (
      <Center py="md" role="status" aria-label={t('app.loading')}>
        <Loader size="sm" />
      </Center>
    );
  }
  if (passkeys.isError) return <FormError message={renderError(passkeys.error, t)} />;
  const full = passkeys.data.length >= MAX_PASSKEYS_PER_ACCOUNT;
  return (
    <Stack>
      <Text size="sm">{t('passkey.manage.intro')}</Text>
      {passkeys.data.length === 0 ? (
        <Text c="dimmed">{t('passkey.manage.empty')}</Text>
      ) : (
        <Stack
          component="ul"
          aria-label={t('passkey.manage.listLabel')}
          gap="sm"
          m={0}
          p={0}
          style={{ listStyle: 'none' }}
        >
          {passkeys.data.map((passkey, index) => (
            <li key={passkey.ID}>
              {index === 0 ? null : <Divider mb="sm" />}
              <PasskeyRow realm={realm} passkey={passkey} />
            </li>
          ))}
        </Stack>
      )}
      {full ? (
        <Text size="sm" c="dimmed">
          {t('passkey.manage.limit', { max: MAX_PASSKEYS_PER_ACCOUNT })}
        </Text>
      ) : (
        <AddPasskey realm={realm} />
      )}
    </Stack>
  );
}
