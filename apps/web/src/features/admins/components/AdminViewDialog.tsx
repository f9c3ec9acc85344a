import type { ReactNode } from 'react';
import { Modal, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { AdminRecord, AdminSessionRecord } from '@postern/protocol';
import { RelativeTime } from '@/components/RelativeTime';
import { AccountPasskeyCount } from '../../passkeys/components/AccountPasskeyCount';
import { accountHasPasskeys } from '../../passkeys/passkey-accounts';
import { hasTotp } from '../admin-rules';
import { AdminSessionsTable } from './AdminSessionsTable';

/** Props of {@link AdminViewDialog}. */
export interface AdminViewDialogProps {
  admin: AdminRecord;
  onClose: () => void;
  onEndSession: (session: AdminSessionRecord) => void;
}

/** One labelled value of the details list. */
function Detail({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <Text size="sm" fw={600} component="dt">
        {label}
      </Text>
      <Text size="sm" component="dd" m={0} style={{ overflowWrap: 'anywhere' }}>
        {children}
      </Text>
    </>
  );
}

/** An admin's details and running sessions, where one session can be ended. */
export function AdminViewDialog({ admin, onClose, onEndSession }: AdminViewDialogProps) {
  const { t } = useTranslation();
  const yesNo = (value: boolean) => t(value ? 'adminsScreen.view.yes' : 'adminsScreen.view.no');
  const totp = hasTotp(admin.AuthType)
    ? admin.TOTPEnabled
      ? t(admin.TOTPVerified ? 'adminsScreen.view.totpVerified' : 'adminsScreen.view.totpPending')
      : t('adminsScreen.view.no')
    : t('adminsScreen.view.totpAtIdp');
  return (
    <Modal
      opened
      onClose={onClose}
      size="lg"
      centered
      title={t('adminsScreen.view.title', { name: admin.Name })}
      closeButtonProps={{ 'aria-label': t('dialog.close') }}
    >
      <Stack>
        <SimpleGrid component="dl" cols={{ base: 1, xs: 2 }} spacing="xs" verticalSpacing={4} m={0}>
          <Detail label={t('adminsScreen.form.name')}>{admin.Name}</Detail>
          <Detail label={t('adminsScreen.form.userName')}>{admin.UserName}</Detail>
          <Detail label={t('adminsScreen.form.authType')}>{t(`adminsScreen.authTypes.${admin.AuthType}`)}</Detail>
          {admin.AuthType === 'LDAP' ? (
            <Detail label={t('adminsScreen.form.dn')}>{admin.ThirdPartyAuth?.DN ?? ''}</Detail>
          ) : null}
          <Detail label={t('adminsScreen.form.totpEnabled')}>{totp}</Detail>
          {accountHasPasskeys(admin.AuthType) ? (
            <Detail label={t('passkeyConsole.detail')}>
              <AccountPasskeyCount accounts="admins" id={admin.ID} />
            </Detail>
          ) : null}
          <Detail label={t('adminsScreen.form.loginEnabled')}>{yesNo(admin.LoginEnabled)}</Detail>
          <Detail label={t('adminsScreen.columns.lastLogin')}>
            {admin.LastLogin === null ? t('adminsScreen.never') : <RelativeTime date={admin.LastLogin} />}
          </Detail>
          <Detail label={t('adminsScreen.view.createdAt')}>
            <RelativeTime date={admin.CreatedAt} />
          </Detail>
        </SimpleGrid>
        <Title order={2} size="h4">
          {t('adminsScreen.sessions.title')}
        </Title>
        <AdminSessionsTable admin={admin} onEnd={onEndSession} />
      </Stack>
    </Modal>
  );
}
