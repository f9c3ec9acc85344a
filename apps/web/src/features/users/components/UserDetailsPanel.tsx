import type { ReactNode } from 'react';
import { Alert, Badge, SimpleGrid, Stack, Text } from '@mantine/core';
import dayjs from 'dayjs';
import { useTranslation } from 'react-i18next';
import type { UserRecord } from '@postern/protocol';
import { RelativeTime } from '@/components/RelativeTime';
import { AccountPasskeyCount } from '../../passkeys/components/AccountPasskeyCount';
import { accountHasPasskeys } from '../../passkeys/passkey-accounts';

function Detail({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" component="div" style={{ overflowWrap: 'anywhere' }}>
        {children}
      </Text>
    </div>
  );
}

/** The view dialog's Details tab: every field of the user an admin reads, none of its secrets. */
export function UserDetailsPanel({ user }: { user: UserRecord }) {
  const { t } = useTranslation();
  const totp = !user.TOTPEnabled ? 'totpOff' : user.TOTPVerified ? 'totpOn' : 'totpPending';
  return (
    <Stack gap="md">
      {user.AuthType === 'SAML' ? <Alert color="blue">{t('usersScreen.view.samlNotEditable')}</Alert> : null}
      <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="sm">
        <Detail label={t('usersScreen.columns.name')}>{user.Name}</Detail>
        <Detail label={t('usersScreen.columns.userName')}>{user.UserName}</Detail>
        <Detail label={t('usersScreen.columns.company')}>{user.Company === '' ? '—' : user.Company}</Detail>
        <Detail label={t('usersScreen.columns.authType')}>{t(`usersScreen.authTypes.${user.AuthType}`)}</Detail>
        {user.ThirdPartyAuth === null ? null : (
          <Detail label={t('usersScreen.view.dn')}>{user.ThirdPartyAuth.DN}</Detail>
        )}
        <Detail label={t('usersScreen.columns.duration')}>{t('usersScreen.minutes', { count: user.Duration })}</Detail>
        <Detail label={t('usersScreen.view.sessionLimit')}>
          {user.SessionLimit ?? t('usersScreen.view.licenceLimit')}
        </Detail>
        <Detail label={t('usersScreen.view.totp')}>{t(`usersScreen.view.${totp}`)}</Detail>
        {accountHasPasskeys(user.AuthType) ? (
          <Detail label={t('passkeyConsole.detail')}>
            <AccountPasskeyCount accounts="users" id={user.ID} />
          </Detail>
        ) : null}
        <Detail label={t('usersScreen.view.validUntil')}>
          {user.ValidUntil === null ? t('usersScreen.view.noExpiry') : dayjs(user.ValidUntil).format('LLL')}
        </Detail>
        <Detail label={t('usersScreen.columns.lastLogin')}>
          {user.LastLogin === null ? t('usersScreen.never') : <RelativeTime date={user.LastLogin} />}
        </Detail>
        <Detail label={t('usersScreen.view.createdAt')}>
          <RelativeTime date={user.CreatedAt} />
        </Detail>
        <Detail label={t('usersScreen.view.licensed')}>
          <Badge variant="light" color={user.Licensed ? 'green' : 'gray'}>
            {user.Licensed ? t('usersScreen.yes') : t('usersScreen.notLicensed')}
          </Badge>
        </Detail>
        {user.Disabled ? (
          <Detail label={t('usersScreen.view.disabled')}>
            <Badge color="red">{t('usersScreen.yes')}</Badge>
          </Detail>
        ) : null}
      </SimpleGrid>
    </Stack>
  );
}
