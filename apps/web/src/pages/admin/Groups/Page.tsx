import { useCallback, useState } from 'react';
import { Button } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { GroupRecord } from '@postern/protocol';
import { routeTitleKey, type RoutePageProps } from '@/app/routes/route-types';
import { SearchInput } from '@/components/data-table/SearchInput';
import { AdminPage } from '@/components/AdminPage';
import { DataTable } from '@/components/data-table/DataTable';
import { ErrorDialog } from '@/components/dialogs/ErrorDialog';
import { useOperation } from '@/components/dialogs/use-operation';
import { QueryState } from '@/components/QueryState';
import { groupsApi } from '@/features/groups/api';
import { GroupFormDialog } from '@/features/groups/components/GroupFormDialog';
import { useGroupColumns } from '@/features/groups/components/use-group-columns';
import { useDeleteGroup } from '@/features/groups/use-delete-group';

/** Which dialog is open. Delete asks through a confirmation instead. */
type Operation = { type: 'create' } | { type: 'edit'; item: GroupRecord };

/** Groups (`/admin/groups`): the searchable groups table, create and edit dialog, delete confirmation. */
export default function GroupsPage({ route }: RoutePageProps) {
  const { t } = useTranslation();
  const [search, setSearch] = useState('');
  const { operation, open, close } = useOperation<Operation>();
  const groups = groupsApi.useList();
  const deletion = useDeleteGroup();
  const edit = useCallback((item: GroupRecord) => open({ type: 'edit', item }), [open]);
  const columns = useGroupColumns({ edit, remove: deletion.confirmDelete });

  const toolbar = (
    <>
      <SearchInput value={search} onChange={setSearch} />
      <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={() => open({ type: 'create' })}>
        {t('groupsScreen.buttons.create')}
      </Button>
    </>
  );

  return (
    <AdminPage title={t(routeTitleKey(route.id))} toolbar={toolbar}>
      <QueryState {...groups}>
        {(rows) => (
          <DataTable
            label={t('groupsScreen.tableLabel')}
            columns={columns}
            rows={rows}
            rowKey={(group) => group.ID}
            search={search}
            initialSort={{ column: 'name', direction: 'asc' }}
          />
        )}
      </QueryState>
      {operation?.type === 'create' ? <GroupFormDialog onClose={close} /> : null}
      {operation?.type === 'edit' ? <GroupFormDialog group={operation.item} onClose={close} /> : null}
      <ErrorDialog error={deletion.failure} onClose={deletion.clearFailure} />
    </AdminPage>
  );
}
