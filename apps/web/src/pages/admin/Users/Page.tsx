import { useState } from 'react';
import { Button } from '@mantine/core';
import { IconLogout, IconUserPlus } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { USERS_LIST_REFRESH_MS, type UserRecord } from '@postern/protocol';
import { routeTitleKey, type RoutePageProps } from '@/app/routes/route-types';
import { SearchInput } from '@/components/data-table/SearchInput';
import { AdminPage } from '@/components/AdminPage';
import { QueryState } from '@/components/QueryState';
import { DataTable } from '@/components/data-table/DataTable';
import { ErrorDialog } from '@/components/dialogs/ErrorDialog';
import { useOperation } from '@/components/dialogs/use-operation';
import { SecretRevealDialog } from '@/components/dialogs/SecretRevealDialog';
import { useAdminStatus } from '@/features/status/api';
import { usersApi } from '@/features/users/api';
import { useUserActions } from '@/features/users/use-user-actions';
import { canCreateUsers, licenceSessionLimit, userLimitNotice } from '@/features/users/user-limit';
import { userColumns, userRowProps } from '@/features/users/components/user-columns';
import { UserFormDialog } from '@/features/users/components/UserFormDialog';
import { UserLimitAlert } from '@/features/users/components/UserLimitAlert';
import { UserRowActions } from '@/features/users/components/UserRowActions';
import { UserViewDialog } from '@/features/users/components/UserViewDialog';

/** Which dialog is open; the view keeps only the id, so it shows the latest refresh of the user. */
type Operation = { type: 'create' } | { type: 'edit'; user: UserRecord } | { type: 'view'; userId: string };

/**
 * Users (`/admin/users`, spec §2): the sortable, searchable user table refreshed every 30 s, the
 * licence notice, and the view, create, edit, reset 2FA, delete and invalidate-all flows.
 */
export default function UsersPage({ route }: RoutePageProps) {
  const { t } = useTranslation();
  const users = usersApi.useList({ refetchInterval: USERS_LIST_REFRESH_MS });
  const licensing = useAdminStatus().data?.Licensing;
  const actions = useUserActions();
  const [search, setSearch] = useState('');
  const { operation, open, close } = useOperation<Operation>();
  const [revealed, setRevealed] = useState<{ userName: string; key: string } | null>(null);

  const notice = licensing === undefined ? null : userLimitNotice(licensing, users.data ?? []);
  // Until the licence and the list are known, Create waits rather than risk offering a refused call.
  const creationAllowed = notice !== null && users.data !== undefined && canCreateUsers(notice);

  const columns = userColumns(t, {
    onView: (user) => open({ type: 'view', userId: user.ID }),
    renderActions: (user) => (
      <UserRowActions
        user={user}
        onView={() => open({ type: 'view', userId: user.ID })}
        onEdit={() => open({ type: 'edit', user })}
        onResetTotp={actions.askResetTotp}
        onRemovePasskeys={actions.askRemovePasskeys}
        onDelete={(target) => actions.askDelete(target)}
      />
    ),
  });

  const viewed = operation?.type === 'view' ? users.data?.find((user) => user.ID === operation.userId) : undefined;

  const toolbar = (
    <>
      <SearchInput value={search} onChange={setSearch} label={t('usersScreen.search')} />
      <Button
        variant="default"
        leftSection={<IconLogout size={16} aria-hidden />}
        loading={actions.invalidatingAll}
        onClick={actions.askInvalidateAll}
      >
        {t('usersScreen.invalidateAll')}
      </Button>
      {creationAllowed ? (
        <Button leftSection={<IconUserPlus size={16} aria-hidden />} onClick={() => open({ type: 'create' })}>
          {t('usersScreen.create')}
        </Button>
      ) : null}
    </>
  );

  return (
    <AdminPage title={t(routeTitleKey(route.id))} toolbar={toolbar}>
      {notice === null ? null : <UserLimitAlert notice={notice} />}
      <QueryState data={users.data} isError={users.isError} error={users.error}>
        {(rows) => (
          <DataTable
            label={t('usersScreen.tableLabel')}
            columns={columns}
            rows={rows}
            rowKey={(user) => user.ID}
            rowProps={userRowProps}
            search={search}
            initialSort={{ column: 'Name', direction: 'asc' }}
            emptyText={t('usersScreen.empty')}
          />
        )}
      </QueryState>
      {operation?.type === 'create' || operation?.type === 'edit' ? (
        <UserFormDialog
          user={operation.type === 'edit' ? operation.user : undefined}
          maxSessionLimit={licensing === undefined ? null : licenceSessionLimit(licensing)}
          onClose={close}
          onKeyCreated={setRevealed}
        />
      ) : null}
      {viewed === undefined ? null : <UserViewDialog user={viewed} actions={actions} onClose={close} />}
      <SecretRevealDialog
        secret={revealed?.key ?? null}
        title={t('usersScreen.form.apiKeyCreatedTitle', { name: revealed?.userName ?? '' })}
        description={t('usersScreen.form.apiKeyCreatedDescription')}
        onClose={() => setRevealed(null)}
      />
      <ErrorDialog error={actions.failure} onClose={actions.clearFailure} />
    </AdminPage>
  );
}
