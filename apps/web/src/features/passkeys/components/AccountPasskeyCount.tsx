import { Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useAccountPasskeys, type ConsoleAccounts } from '../console-passkeys-api';

/** How many passkeys an account holds, for a console details list ("—" until known or when unreadable). */
export function AccountPasskeyCount({ accounts, id }: { accounts: ConsoleAccounts; id: string }) {
  const { t } = useTranslation();
  const passkeys = useAccountPasskeys(accounts, id);
  if (passkeys.data === undefined) return <Text span>—</Text>;
  const count = passkeys.data.length;
  return <Text span>{count === 0 ? t('passkeyConsole.none') : t('passkeyConsole.count', { count })}</Text>;
}
