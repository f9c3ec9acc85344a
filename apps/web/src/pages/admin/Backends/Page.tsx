import { useCallback, useState } from 'react';
import { Button } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { BackendRecord } from '@postern/protocol';
import { routeTitleKey, type RoutePageProps } from '@/app/routes/route-types';
import { AdminPage } from '@/components/AdminPage';
import { DataTable } from '@/components/data-table/DataTable';
import { SearchInput } from '@/components/data-table/SearchInput';
import { ErrorDialog } from '@/components/dialogs/ErrorDialog';
import { useOperation } from '@/components/dialogs/use-operation';
import { QueryState } from '@/components/QueryState';
import { backendsApi } from '@/features/backends/api';
import { BackendFormDialog } from '@/features/backends/components/BackendFormDialog';
import { useBackendColumns } from '@/features/backends/components/use-backend-columns';
import { useDeleteBackend } from '@/features/backends/use-delete-backend';

/** Which dialog is open. Delete asks through a confirmation instead. */
type Operation = { type: 'create' } | { type: 'edit'; item: BackendRecord };

/** Backends (`/admin/backends`): the searchable backends table, create and edit dialog, delete confirmation. */
export default function BackendsPage({ route }: RoutePageProps) {
  const { t } = useTranslation();
  const [search, setSearch] = useState('');
  const { operation, open, close } = useOperation<Operation>();
  const backends = backendsApi.useList();
  const deletion = useDeleteBackend();
  const edit = useCallback((item: BackendRecord) => open({ type: 'edit', item }), [open]);
  const columns = useBackendColumns({ edit, remove: deletion.confirmDelete });

  const toolbar = (
    <>
      <SearchInput value={search} onChange={setSearch} />
      <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={() => open({ type: 'create' })}>
        {t('backendsScreen.buttons.create')}
      </Button>
    </>
  );

  return (
    <AdminPage title={t(routeTitleKey(route.id))} toolbar={toolbar}>
      <QueryState {...backends}>
        {(rows) => (
          <DataTable
            label={t('backendsScreen.tableLabel')}
            columns={columns}
            rows={rows}
            rowKey={(backend) => backend.ID}
            search={search}
            initialSort={{ column: 'name', direction: 'asc' }}
            emptyText={t('backendsScreen.empty')}
          />
        )}
      </QueryState>
      {operation === null ? null : (
        <BackendFormDialog backend={operation.type === 'edit' ? operation.item : undefined} onClose={close} />
      )}
      <ErrorDialog error={deletion.failure} onClose={deletion.clearFailure} />
    </AdminPage>
  );
}
