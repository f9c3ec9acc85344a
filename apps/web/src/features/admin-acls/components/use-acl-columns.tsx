import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { KnocRecord } from '@postern/protocol';
import type { DataTableColumn } from '@/components/data-table/DataTable';
import { EditDeleteActions } from '@/components/EditDeleteActions';
import { RelativeTime } from '@/components/RelativeTime';
import { aclDetails } from '../acl-details';

/** What the row actions open or ask. */
export interface AclRowHandlers {
  edit: (knoc: KnocRecord) => void;
  remove: (knoc: KnocRecord) => void;
}

/** The ACLs table (spec: description, details by backend type, last modified, actions). */
export function useAclColumns({ edit, remove }: AclRowHandlers): DataTableColumn<KnocRecord>[] {
  const { t } = useTranslation();
  return useMemo(
    () => [
      {
        id: 'description',
        header: t('aclsScreen.columns.description'),
        accessor: (knoc) => knoc.Description,
        sortable: true,
      },
      {
        id: 'details',
        header: t('aclsScreen.columns.details'),
        accessor: (knoc) => aclDetails(knoc, t),
        sortable: true,
      },
      {
        id: 'modified',
        header: t('aclsScreen.columns.modified'),
        accessor: (knoc) => knoc.LastModifiedAt,
        render: (knoc) => <RelativeTime date={knoc.LastModifiedAt} />,
        sortable: true,
      },
      {
        id: 'actions',
        header: t('aclsScreen.columns.actions'),
        render: (knoc) => (
          <EditDeleteActions
            editLabel={t('aclsScreen.actions.edit', { name: knoc.Description })}
            deleteLabel={t('aclsScreen.actions.delete', { name: knoc.Description })}
            onEdit={() => edit(knoc)}
            onDelete={() => remove(knoc)}
          />
        ),
      },
    ],
    [t, edit, remove],
  );
}
