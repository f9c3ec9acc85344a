import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { BackendRecord } from '@postern/protocol';
import type { DataTableColumn } from '@/components/data-table/DataTable';
import { EditDeleteActions } from '@/components/EditDeleteActions';
import { RelativeTime } from '@/components/RelativeTime';
import { backendTypeLabelKey, needsAgent } from '../backend-types';

/** What the row actions open or ask. */
export interface BackendRowHandlers {
  edit: (backend: BackendRecord) => void;
  remove: (backend: BackendRecord) => void;
}

/** The backends table (spec: sortable name, type and agent, last modified, Edit and Delete). */
export function useBackendColumns({ edit, remove }: BackendRowHandlers): DataTableColumn<BackendRecord>[] {
  const { t } = useTranslation();
  return useMemo(
    () => [
      { id: 'name', header: t('backendsScreen.columns.name'), accessor: (backend) => backend.Name, sortable: true },
      {
        id: 'type',
        header: t('backendsScreen.columns.type'),
        accessor: (backend) => t(backendTypeLabelKey(backend.Type)),
        sortable: true,
      },
      {
        id: 'agent',
        header: t('backendsScreen.columns.agent'),
        accessor: (backend) => (needsAgent(backend.Type) ? backend.AgentName : t('backendsScreen.noAgent')),
        sortable: true,
      },
      {
        id: 'modified',
        header: t('backendsScreen.columns.modified'),
        accessor: (backend) => backend.LastModifiedBy,
        render: (backend) => <RelativeTime date={backend.LastModifiedAt} />,
      },
      {
        id: 'actions',
        header: t('backendsScreen.columns.actions'),
        render: (backend) => (
          <EditDeleteActions
            editLabel={t('backendsScreen.actions.edit', { name: backend.Name })}
            deleteLabel={t('backendsScreen.actions.delete', { name: backend.Name })}
            onEdit={() => edit(backend)}
            onDelete={() => remove(backend)}
          />
        ),
      },
    ],
    [t, edit, remove],
  );
}
