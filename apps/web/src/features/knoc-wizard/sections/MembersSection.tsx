import { Anchor, Checkbox, Stack, Text, Title } from '@mantine/core';
import type { GroupRecord, UserRecord } from '@postern/protocol';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { DataTable, type DataTableColumn } from '@/components/data-table/DataTable';
import { RelativeTime } from '@/components/RelativeTime';
import { CreateUserAction } from './CreateUserAction';
import { groupTables, selectableUsers, toggledId, type MembersValues } from './members';

/** Props of {@link MembersSection}. */
export interface MembersSectionProps {
  users: readonly UserRecord[];
  groups: readonly GroupRecord[];
  value: MembersValues;
  onChange: (value: MembersValues) => void;
}

function selectColumn<T extends { ID: string; Name: string }>(
  t: TFunction,
  selected: readonly string[],
  onToggle: (id: string, checked: boolean) => void,
): DataTableColumn<T> {
  return {
    id: 'select',
    header: t('knocWizard.members.select'),
    width: 90,
    render: (row) => (
      <Checkbox
        aria-label={t('knocWizard.members.selectRow', { name: row.Name })}
        checked={selected.includes(row.ID)}
        onChange={(event) => onToggle(row.ID, event.currentTarget.checked)}
      />
    ),
  };
}

function groupColumns(
  t: TFunction,
  selected: readonly string[],
  onToggle: (id: string, checked: boolean) => void,
): DataTableColumn<GroupRecord>[] {
  return [
    { id: 'name', header: t('knocWizard.members.name'), accessor: (group) => group.Name, sortable: true },
    {
      id: 'description',
      header: t('knocWizard.members.description'),
      accessor: (group) => group.Description,
      sortable: true,
    },
    {
      id: 'users',
      header: t('knocWizard.members.userCount'),
      accessor: (group) => group.UserIDs.length,
      sortable: true,
    },
    selectColumn<GroupRecord>(t, selected, onToggle),
  ];
}

/**
 * Users and groups who get the knoc (spec §2): a users table without SAML users, with a create-user
 * action; SAML groups and local groups in tables of their own; a link to the groups screen when
 * there are none. Every table sorts by a header click, again to reverse.
 */
export function MembersSection({ users, groups, value, onChange }: MembersSectionProps) {
  const { t } = useTranslation();
  const toggleUser = (id: string, checked: boolean) =>
    onChange({ ...value, userIds: toggledId(value.userIds, id, checked) });
  const toggleGroup = (id: string, checked: boolean) =>
    onChange({ ...value, groupIds: toggledId(value.groupIds, id, checked) });
  const userColumns: DataTableColumn<UserRecord>[] = [
    { id: 'name', header: t('knocWizard.members.name'), accessor: (user) => user.Name, sortable: true },
    { id: 'company', header: t('knocWizard.members.company'), accessor: (user) => user.Company, sortable: true },
    { id: 'userName', header: t('knocWizard.members.userName'), accessor: (user) => user.UserName, sortable: true },
    {
      id: 'lastLogin',
      header: t('knocWizard.members.lastLogin'),
      accessor: (user) => user.LastLogin,
      sortable: true,
      render: (user) =>
        user.LastLogin === null ? t('knocWizard.members.never') : <RelativeTime date={user.LastLogin} />,
    },
    selectColumn<UserRecord>(t, value.userIds, toggleUser),
  ];
  const { saml, local } = groupTables(groups);
  const sort = { column: 'name', direction: 'asc' } as const;

  return (
    <Stack gap="lg">
      <Stack gap="xs">
        <Title order={3} size="h4">
          {t('knocWizard.members.users')}
        </Title>
        <DataTable
          label={t('knocWizard.members.users')}
          columns={userColumns}
          rows={selectableUsers(users)}
          rowKey={(user) => user.ID}
          initialSort={sort}
          emptyText={t('knocWizard.members.noUsers')}
        />
        <CreateUserAction
          // A user made from here is meant for this knoc: selected at once (SAML users are not listed here).
          onCreated={(user) => {
            if (selectableUsers([user]).length > 0) toggleUser(user.ID, true);
          }}
        />
      </Stack>
      <Stack gap="xs">
        <Title order={3} size="h4">
          {t('knocWizard.members.groups')}
        </Title>
        {saml.length === 0 && local.length === 0 ? (
          <Text size="sm">
            {t('knocWizard.members.noGroups')}{' '}
            <Anchor component={Link} to="/admin/groups" underline="always">
              {t('knocWizard.members.manageGroups')}
            </Anchor>
          </Text>
        ) : (
          (
            [
              ['knocWizard.members.samlGroups', 'knocWizard.members.noSamlGroups', saml],
              ['knocWizard.members.localGroups', 'knocWizard.members.noLocalGroups', local],
            ] as const
          ).map(([labelKey, emptyKey, rows]) => (
            <DataTable
              key={labelKey}
              label={t(labelKey)}
              columns={groupColumns(t, value.groupIds, toggleGroup)}
              rows={rows}
              rowKey={(group) => group.ID}
              initialSort={sort}
              emptyText={t(emptyKey)}
            />
          ))
        )}
      </Stack>
    </Stack>
  );
}
