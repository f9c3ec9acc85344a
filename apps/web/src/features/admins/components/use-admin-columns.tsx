import { useMemo } from 'react';
import { Badge, Group, Text } from '@mantine/core';
import { IconEdit, IconEye, IconFingerprintOff, IconShieldOff, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { AdminRecord } from '@postern/protocol';
import { RowAction } from '@/components/RowAction';
import type { DataTableColumn } from '@/components/data-table/DataTable';
import { RelativeTime } from '@/components/RelativeTime';
import { accountHasPasskeys } from '../../passkeys/passkey-accounts';
import { adminRowActions, isOwnAccount } from '../admin-rules';

/** What the row actions open or ask. */
export interface AdminRowHandlers {
  view: (admin: AdminRecord) => void;
  edit: (admin: AdminRecord) => void;
  resetTotp: (admin: AdminRecord) => void;
  removePasskeys: (admin: AdminRecord) => void;
  remove: (admin: AdminRecord) => void;
}

/**
 * Why an admin's passkeys cannot be removed here, or null: the signed-in admin manages their own
 * (the Passkeys button), and SAML and OpenID Connect admins hold none.
 */
function passkeysUnavailable(admin: AdminRecord, own: boolean): string | null {
  if (!accountHasPasskeys(admin.AuthType)) return 'passkeyConsole.unavailable';
  return own ? 'passkeyConsole.own' : null;
}

/**
 * The admins table (spec: sortable Name, AuthType, UserName, LastLogin; a marker when login is
 * disabled; row actions view, edit, reset 2FA, remove passkeys, delete). `ownUserName` marks the signed-in admin,
 * whose reset and delete are unavailable.
 */
export function useAdminColumns(ownUserName: string | undefined, on: AdminRowHandlers): DataTableColumn<AdminRecord>[] {
  const { t } = useTranslation();
  return useMemo(
    () => [
      {
        id: 'name',
        header: t('adminsScreen.columns.name'),
        accessor: (admin) => admin.Name,
        sortable: true,
        render: (admin) => (
          <Group gap="xs" wrap="nowrap">
            <Text size="sm" c={admin.LoginEnabled ? undefined : 'dimmed'}>
              {admin.Name}
            </Text>
            {admin.LoginEnabled ? null : (
              <Badge color="gray" variant="light">
                {t('adminsScreen.loginDisabled')}
              </Badge>
            )}
            {isOwnAccount(admin, ownUserName) ? <Badge variant="outline">{t('adminsScreen.you')}</Badge> : null}
          </Group>
        ),
      },
      {
        id: 'authType',
        header: t('adminsScreen.columns.authType'),
        accessor: (admin) => t(`adminsScreen.authTypes.${admin.AuthType}`),
        sortable: true,
      },
      {
        id: 'userName',
        header: t('adminsScreen.columns.userName'),
        accessor: (admin) => admin.UserName,
        sortable: true,
      },
      {
        id: 'lastLogin',
        header: t('adminsScreen.columns.lastLogin'),
        // ISO instants sort as text in time order; "never" sorts last either way.
        accessor: (admin) => admin.LastLogin,
        sortable: true,
        render: (admin) =>
          admin.LastLogin === null ? (
            <Text size="sm" c="dimmed">
              {t('adminsScreen.never')}
            </Text>
          ) : (
            <RelativeTime date={admin.LastLogin} />
          ),
      },
      {
        id: 'actions',
        header: t('adminsScreen.columns.actions'),
        render: (admin) => {
          const unavailable = adminRowActions(admin, isOwnAccount(admin, ownUserName));
          const reason = (key: string | null) => (key === null ? null : t(key));
          return (
            <Group gap={4} wrap="nowrap">
              <RowAction
                label={t('adminsScreen.actions.view', { name: admin.Name })}
                icon={<IconEye size={18} aria-hidden />}
                onClick={() => on.view(admin)}
              />
              <RowAction
                label={t('adminsScreen.actions.edit', { name: admin.Name })}
                icon={<IconEdit size={18} aria-hidden />}
                onClick={() => on.edit(admin)}
              />
              <RowAction
                label={t('adminsScreen.actions.resetTotp', { name: admin.Name })}
                icon={<IconShieldOff size={18} aria-hidden />}
                onClick={() => on.resetTotp(admin)}
                unavailable={reason(unavailable.resetTotp)}
                color="orange"
              />
              <RowAction
                label={t('passkeyConsole.removeOf', { name: admin.Name })}
                icon={<IconFingerprintOff size={18} aria-hidden />}
                onClick={() => on.removePasskeys(admin)}
                unavailable={reason(passkeysUnavailable(admin, isOwnAccount(admin, ownUserName)))}
                color="orange"
              />
              <RowAction
                label={t('adminsScreen.actions.delete', { name: admin.Name })}
                icon={<IconTrash size={18} aria-hidden />}
                onClick={() => on.remove(admin)}
                unavailable={reason(unavailable.remove)}
                color="red"
              />
            </Group>
          );
        },
      },
    ],
    [t, ownUserName, on],
  );
}
