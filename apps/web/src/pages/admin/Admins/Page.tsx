import { useState } from 'react';
import { Button } from '@mantine/core';
import { IconPlus, IconPlugConnectedX } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { AdminRecord } from '@postern/protocol';
import { routeTitleKey, type RoutePageProps } from '@/app/routes/route-types';
import { SearchInput } from '@/components/data-table/SearchInput';
import { AdminPage } from '@/components/AdminPage';
import { DataTable } from '@/components/data-table/DataTable';
import { ErrorDialog } from '@/components/dialogs/ErrorDialog';
import { useOperation } from '@/components/dialogs/use-operation';
import { QueryState } from '@/components/QueryState';
import { isOwnAccount } from '@/features/admins/admin-rules';
import { adminsApi } from '@/features/admins/api';
import { AdminFormDialog } from '@/features/admins/components/AdminFormDialog';
import { AdminViewDialog } from '@/features/admins/components/AdminViewDialog';
import { useAdminColumns } from '@/features/admins/components/use-admin-columns';
import { useAdminActions } from '@/features/admins/use-admin-actions';
import { useAdminSession } from '@/lib/session/session-store';

/** Which dialog is open. Delete and reset 2FA ask through a confirmation instead. */
type Operation = { type: 'create' } | { type: 'edit'; item: AdminRecord } | { type: 'view'; item: AdminRecord };

/**
 * Admins (`/admin/admins`): the sortable, searchable admins table with view, edit, reset 2FA and
 * delete per row, and the buttons "Invalidate all admin sessions" and "Create admin".
 */
export default function AdminsPage({ route }: RoutePageProps) {
  const { t } = useTranslation();
  const [search, setSearch] = useState('');
  const { operation, open, close } = useOperation<Operation>();
  const admins = adminsApi.useList();
  const ownUserName = useAdminSession()?.UserName;
  const actions = useAdminActions();
  const columns = useAdminColumns(ownUserName, {
    view: (item) => open({ type: 'view', item }),
    edit: (item) => open({ type: 'edit', item }),
    resetTotp: actions.confirmResetTotp,
    removePasskeys: actions.confirmRemovePasskeys,
    remove: actions.confirmDelete,
  });
  // A dialog shows the admin as the list has it now, so a refresh after ending a session shows through.
  const current = (item: AdminRecord) => admins.data?.find((admin) => admin.ID === item.ID) ?? item;

  const toolbar = (
    <>
      <SearchInput value={search} onChange={setSearch} />
      <Button
        variant="default"
        leftSection={<IconPlugConnectedX size={16} aria-hidden />}
        loading={actions.invalidating}
        onClick={actions.confirmInvalidateSessions}
      >
        {t('adminsScreen.buttons.invalidateSessions')}
      </Button>
      <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={() => open({ type: 'create' })}>
        {t('adminsScreen.buttons.create')}
      </Button>
    </>
  );

  return (
    <AdminPage title={t(routeTitleKey(route.id))} toolbar={toolbar}>
      <QueryState {...admins}>
        {(rows) => (
          <DataTable
            label={t('adminsScreen.tableLabel')}
            columns={columns}
            rows={rows}
            rowKey={(admin) => admin.ID}
            search={search}
            initialSort={{ column: 'name', direction: 'asc' }}
            // Five row actions beside the names: narrower, the "You" badge would give up its text.
            minWidth={760}
          />
        )}
      </QueryState>
      {operation?.type === 'create' ? <AdminFormDialog own={false} onClose={close} /> : null}
      {operation?.type === 'edit' ? (
        <AdminFormDialog
          admin={current(operation.item)}
          own={isOwnAccount(operation.item, ownUserName)}
          onClose={close}
        />
      ) : null}
      {operation?.type === 'view' ? (
        <AdminViewDialog admin={current(operation.item)} onClose={close} onEndSession={actions.confirmEndSession} />
      ) : null}
      <ErrorDialog error={actions.failure} onClose={actions.clearFailure} />
    </AdminPage>
  );
}
