import { useMemo } from 'react';
import { Group } from '@mantine/core';
import { IconEdit, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { GroupRecord } from '@postern/protocol';
import type { DataTableColumn } from '@/components/data-table/DataTable';
import { RowAction } from '@/components/RowAction';

/** What the row actions open or ask. */
export interface GroupRowHandlers {
  edit: (group: GroupRecord) => void;
  remove: (group: GroupRecord) => void;
}

/** The groups table (spec: Name, Type, Description, Knocs count, Users count, actions), every column searchable. */
export function useGroupColumns(on: GroupRowHandlers): DataTableColumn<GroupRecord>[] {
  const { t } = useTranslation();
  const { edit, remove } = on;
  return useMemo(
    () => [
      { id: 'name', header: t('groupsScreen.columns.name'), accessor: (group) => group.Name, sortable: true },
      {
        id: 'type',
        header: t('groupsScreen.columns.type'),
        accessor: (group) => t(`groupsScreen.types.${group.Type}`),
        sortable: true,
      },
      {
        id: 'description',
        header: t('groupsScreen.columns.description'),
        accessor: (group) => group.Description,
        sortable: true,
      },
      {
        id: 'knocs',
        header: t('groupsScreen.columns.knocs'),
        accessor: (group) => group.ACLIDs.length,
        sortable: true,
      },
      {
        id: 'users',
        header: t('groupsScreen.columns.users'),
        accessor: (group) => group.UserIDs.length,
        sortable: true,
      },
      {
        id: 'actions',
        header: t('groupsScreen.columns.actions'),
        render: (group) => (
          <Group gap={4} wrap="nowrap">
            <RowAction
              label={t('groupsScreen.actions.edit', { name: group.Name })}
              icon={<IconEdit size={18} aria-hidden />}
              onClick={() => edit(group)}
            />
            <RowAction
              label={t('groupsScreen.actions.delete', { name: group.Name })}
              icon={<IconTrash size={18} aria-hidden />}
              onClick={() => remove(group)}
              color="red"
            />
          </Group>
        ),
      },
    ],
    [t, edit, remove],
  );
}
