import { List, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { GroupRecord } from '@postern/protocol';
import { QueryState } from '@/components/QueryState';
import { DataTable, type DataTableColumn } from '@/components/data-table/DataTable';
import { useUserAcls, useUserGroups } from '../user-details-api';

/** The view dialog's Groups tab: the groups the user belongs to (GET /api/admin/users/:id/groups). */
export function UserGroupsPanel({ userId }: { userId: string }) {
  const { t } = useTranslation();
  const groups = useUserGroups(userId);
  const columns: DataTableColumn<GroupRecord>[] = [
    { id: 'Name', header: t('usersScreen.view.groupName'), accessor: (group) => group.Name, sortable: true },
    { id: 'Type', header: t('usersScreen.view.groupType'), accessor: (group) => group.Type, sortable: true },
    { id: 'Description', header: t('usersScreen.view.groupDescription'), accessor: (group) => group.Description },
  ];
  return (
    <QueryState data={groups.data} isError={groups.isError} error={groups.error}>
      {(rows) => (
        <DataTable
          label={t('usersScreen.view.groupsLabel')}
          columns={columns}
          rows={rows}
          rowKey={(group) => group.ID}
          initialSort={{ column: 'Name', direction: 'asc' }}
          emptyText={t('usersScreen.view.noGroups')}
        />
      )}
    </QueryState>
  );
}

/**
 * The view dialog's ACLs tab: every knoc the user holds, directly or through a group
 * (GET /api/admin/users/:id/acls, sorted by description on the server).
 */
export function UserAclsPanel({ userId }: { userId: string }) {
  const { t } = useTranslation();
  const acls = useUserAcls(userId);
  return (
    <QueryState data={acls.data} isError={acls.isError} error={acls.error}>
      {(rows) =>
        rows.length === 0 ? (
          <Text c="dimmed" role="status">
            {t('usersScreen.view.noAcls')}
          </Text>
        ) : (
          <List aria-label={t('usersScreen.view.aclsLabel')} spacing={4}>
            {rows.map((acl) => (
              <List.Item key={acl.ID}>{acl.Description}</List.Item>
            ))}
          </List>
        )
      }
    </QueryState>
  );
}
