import { useCallback, useMemo, useState } from 'react';
import { Button } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import type { ApiKeyRecord } from '@postern/protocol';
import { useTranslation } from 'react-i18next';
import { routeTitleKey, type RoutePageProps } from '@/app/routes/route-types';
import { SearchInput } from '@/components/data-table/SearchInput';
import { AdminPage } from '@/components/AdminPage';
import { DataTable } from '@/components/data-table/DataTable';
import { ErrorDialog } from '@/components/dialogs/ErrorDialog';
import { useConfirmedActions } from '@/components/dialogs/use-confirmed-actions';
import { useOperation } from '@/components/dialogs/use-operation';
import { SecretRevealDialog } from '@/components/dialogs/SecretRevealDialog';
import { QueryState } from '@/components/QueryState';
import { apiKeysApi } from '@/features/api-keys/api';
import { allowlistKnocs, scopeNames } from '@/features/api-keys/api-key-display';
import { ApiKeyFormDialog } from '@/features/api-keys/components/ApiKeyFormDialog';
import { useApiKeyColumns } from '@/features/api-keys/components/use-api-key-columns';
import { useScopeTargets } from '@/features/api-keys/use-scope-targets';

/** Which dialog is open: creating, editing, or showing a new key's plaintext once. */
type Operation =
  { type: 'create' } | { type: 'edit'; item: ApiKeyRecord } | { type: 'reveal'; name: string; secret: string };

/** API keys (`/admin/api-keys`): the keys' table, create, edit (AllowedFrom only), delete. */
export default function ApiKeysPage({ route }: RoutePageProps) {
  const { t } = useTranslation();
  const list = apiKeysApi.useList();
  const { knocs, users } = useScopeTargets();
  const remove = apiKeysApi.useDelete();
  const { operation, open, close } = useOperation<Operation>();
  const { confirm, failure, clearFailure } = useConfirmedActions();
  const [search, setSearch] = useState('');

  const names = useMemo(() => scopeNames(knocs.data, users.data), [knocs.data, users.data]);
  const onEdit = useCallback((item: ApiKeyRecord) => open({ type: 'edit', item }), [open]);
  const { mutate: deleteKey } = remove;
  const onDelete = useCallback(
    (item: ApiKeyRecord) =>
      confirm({
        title: t('apiKeysScreen.deleteConfirm.title'),
        message: t('apiKeysScreen.deleteConfirm.message', { name: item.Name }),
        confirmLabel: t('apiKeysScreen.deleteConfirm.confirm'),
        mutation: { mutate: deleteKey },
        variables: item.ID,
        done: t('apiKeysScreen.notify.deleted'),
      }),
    [t, confirm, deleteKey],
  );
  const columns = useApiKeyColumns(names, {
    onEdit,
    onDelete,
    deletingId: remove.isPending ? String(remove.variables) : null,
  });

  const toolbar = (
    <>
      <SearchInput value={search} onChange={setSearch} label={t('apiKeysScreen.searchLabel')} />
      <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={() => open({ type: 'create' })}>
        {t('apiKeysScreen.create')}
      </Button>
    </>
  );

  return (
    <AdminPage title={t(routeTitleKey(route.id))} toolbar={toolbar}>
      <QueryState data={list.data} isError={list.isError} error={list.error}>
        {(keys) => (
          <DataTable
            label={t('apiKeysScreen.tableLabel')}
            columns={columns}
            rows={keys}
            rowKey={(key) => key.ID}
            search={search}
            emptyText={t('apiKeysScreen.empty')}
          />
        )}
      </QueryState>

      {operation?.type === 'create' || operation?.type === 'edit' ? (
        <ApiKeyFormDialog
          apiKey={operation.type === 'edit' ? operation.item : undefined}
          existingNames={(list.data ?? []).map((key) => key.Name)}
          allowlists={allowlistKnocs(knocs.data ?? [])}
          users={users.data ?? []}
          choicesFailed={knocs.isError || users.isError}
          onClose={close}
          onCreated={(name, secret) => open({ type: 'reveal', name, secret })}
        />
      ) : null}
      <SecretRevealDialog
        secret={operation?.type === 'reveal' ? operation.secret : null}
        title={t('apiKeysScreen.reveal.title', { name: operation?.type === 'reveal' ? operation.name : '' })}
        description={t('apiKeysScreen.reveal.description')}
        onClose={close}
      />
      <ErrorDialog error={failure} onClose={clearFailure} />
    </AdminPage>
  );
}
