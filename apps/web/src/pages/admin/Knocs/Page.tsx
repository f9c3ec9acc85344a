import { useCallback, useMemo, useState } from 'react';
import { Button } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { generatePath, Link, useNavigate } from 'react-router';
import type { KnocRecord } from '@postern/protocol';
import { routePath } from '@/lib/route-paths';
import { routeTitleKey, type RoutePageProps } from '@/app/routes/route-types';
import { AdminPage } from '@/components/AdminPage';
import { DataTable } from '@/components/data-table/DataTable';
import { SearchInput } from '@/components/data-table/SearchInput';
import { searchRows } from '@/components/data-table/table-state';
import { ErrorDialog } from '@/components/dialogs/ErrorDialog';
import { useOperation } from '@/components/dialogs/use-operation';
import { QueryState } from '@/components/QueryState';
import { apiKeysApi } from '@/features/api-keys/api';
import { knocsApi } from '@/features/knocs/api';
import { KnocDetailDialog } from '@/features/knocs/components/KnocDetailDialog';
import { KnocTypeTiles } from '@/features/knocs/components/KnocTypeTiles';
import { useKnocColumns } from '@/features/knocs/components/use-knoc-columns';
import { editTargetId, listedKnocs } from '@/features/knocs/knoc-types';
import { useDeleteKnoc } from '@/features/knocs/use-delete-knoc';
import { useKnocsQuery } from '@/features/knocs/use-knocs-query';

/** Which dialog is open. Delete asks through confirmations instead. */
type Operation = { type: 'view'; knocId: string };

/** The search covers the name only (spec), ignoring case. */
const NAME_ONLY = [{ id: 'name', accessor: (knoc: KnocRecord) => knoc.Name }];

/**
 * Knocs (`/admin/knocs`): the searchable, sortable knocs table, or the six ways to start one when
 * there are none; a row opens the knoc's details with Edit and Delete.
 */
export default function KnocsPage({ route }: RoutePageProps) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [search, setSearch] = useState('');
  const { operation, open, close } = useOperation<Operation>();
  const knocs = knocsApi.useList();
  // The keys are read ahead: a delete needs their scopes as they were before it.
  const apiKeys = apiKeysApi.useList();
  const deletion = useDeleteKnoc(apiKeys.data ?? []);
  const view = useCallback((knocId: string) => open({ type: 'view', knocId }), [open]);
  const viewKnoc = useCallback((knoc: KnocRecord) => view(knoc.ID), [view]);
  const columns = useKnocColumns(viewKnoc);
  useKnocsQuery(view);

  const edit = (knoc: KnocRecord) =>
    void navigate(generatePath(routePath('knocUpdate'), { knocId: editTargetId(knoc) }));
  const remove = (knoc: KnocRecord) => {
    close();
    deletion.confirmDelete(knoc);
  };
  const listed = useMemo(() => listedKnocs(knocs.data ?? []), [knocs.data]);
  const matching = useMemo(() => searchRows(listed, NAME_ONLY, search), [listed, search]);

  const toolbar = (
    <>
      <SearchInput value={search} onChange={setSearch} />
      <Button component={Link} to={routePath('knocsNew')} leftSection={<IconPlus size={16} aria-hidden />}>
        {t('knocsScreen.buttons.create')}
      </Button>
    </>
  );

  return (
    <AdminPage title={t(routeTitleKey(route.id))} toolbar={toolbar}>
      <QueryState {...knocs}>
        {() =>
          listed.length === 0 ? (
            <KnocTypeTiles />
          ) : (
            <DataTable
              label={t('knocsScreen.tableLabel')}
              columns={columns}
              rows={matching}
              rowKey={(knoc) => knoc.ID}
              initialSort={{ column: 'name', direction: 'asc' }}
              emptyText={t('table.noMatches')}
              rowProps={(knoc) => ({ onClick: () => viewKnoc(knoc), style: { cursor: 'pointer' } })}
            />
          )
        }
      </QueryState>
      {/* Once the list is there: the knoc is taken from it, and fetched alone only when it is not in it. */}
      {operation?.type === 'view' && knocs.data !== undefined ? (
        <KnocDetailDialog knocId={operation.knocId} knocs={listed} onClose={close} onEdit={edit} onDelete={remove} />
      ) : null}
      <ErrorDialog error={deletion.failure} onClose={deletion.clearFailure} />
    </AdminPage>
  );
}
