import { useCallback, useMemo, useState } from 'react';
import { Button } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { ErrorCodes, type KnocRecord } from '@postern/protocol';
import { routeTitleKey, type RoutePageProps } from '@/app/routes/route-types';
import { AdminPage } from '@/components/AdminPage';
import { DataTable } from '@/components/data-table/DataTable';
import { SearchInput } from '@/components/data-table/SearchInput';
import { ErrorDialog } from '@/components/dialogs/ErrorDialog';
import { useOperation } from '@/components/dialogs/use-operation';
import { QueryState } from '@/components/QueryState';
import { adminAclsApi } from '@/features/admin-acls/api';
import { AclFormDialog } from '@/features/admin-acls/components/AclFormDialog';
import { useAclColumns } from '@/features/admin-acls/components/use-acl-columns';
import { useDeleteAcl } from '@/features/admin-acls/use-delete-acl';
import { backendsApi } from '@/features/backends/api';

/** Which dialog is open: the form, or the spec's error when there is no backend to put an ACL on. */
type Operation = { type: 'create' } | { type: 'edit'; item: KnocRecord } | { type: 'noBackends' };

/** ACLs (`/admin/acls`): knocs on existing backends, searchable and sorted by description. */
export default function AclsPage({ route }: RoutePageProps) {
  const { t } = useTranslation();
  const [search, setSearch] = useState('');
  const { operation, open, close } = useOperation<Operation>();
  const acls = adminAclsApi.useList();
  const backends = backendsApi.useList();
  const deletion = useDeleteAcl();
  const edit = useCallback((item: KnocRecord) => open({ type: 'edit', item }), [open]);
  const columns = useAclColumns({ edit, remove: deletion.confirmDelete });
  // Knocs hidden from admins (a passive+ knoc's child) are not listed.
  const visible = useMemo(() => acls.data?.filter((knoc) => !knoc.HideFromAdmins), [acls.data]);
  const backendList = backends.data ?? [];

  const toolbar = (
    <>
      <SearchInput value={search} onChange={setSearch} />
      <Button
        leftSection={<IconPlus size={16} aria-hidden />}
        disabled={backends.isPending}
        onClick={() => open(backendList.length === 0 ? { type: 'noBackends' } : { type: 'create' })}
      >
        {t('aclsScreen.buttons.create')}
      </Button>
    </>
  );

  return (
    <AdminPage title={t(routeTitleKey(route.id))} toolbar={toolbar}>
      <QueryState data={visible} isError={acls.isError} error={acls.error}>
        {(rows) => (
          <DataTable
            label={t('aclsScreen.tableLabel')}
            columns={columns}
            rows={rows}
            rowKey={(knoc) => knoc.ID}
            search={search}
            initialSort={{ column: 'description', direction: 'asc' }}
            emptyText={t('aclsScreen.empty')}
          />
        )}
      </QueryState>
      {operation?.type === 'create' || operation?.type === 'edit' ? (
        <AclFormDialog
          knoc={operation.type === 'edit' ? operation.item : undefined}
          backends={backendList}
          onClose={close}
        />
      ) : null}
      <ErrorDialog
        error={operation?.type === 'noBackends' ? ErrorCodes.createBackendBeforeACL : null}
        onClose={close}
      />
      <ErrorDialog error={deletion.failure} onClose={deletion.clearFailure} />
    </AdminPage>
  );
}
