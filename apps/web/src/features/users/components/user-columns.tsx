import type { ReactNode } from 'react';
import { Anchor, Badge, Text, VisuallyHidden } from '@mantine/core';
import type { TFunction } from 'i18next';
import type { UserRecord } from '@postern/protocol';
import { RelativeTime } from '@/components/RelativeTime';
import type { DataTableColumn } from '@/components/data-table/DataTable';

/**
 * A cell of an unlicensed user, greyed out (spec: "A user whose Licensed is false shows greyed
 * out"). DataTable has no per-row styling, so every cell of such a row dims its own content.
 */
function Cell({ user, children }: { user: UserRecord; children: ReactNode }) {
  if (user.Licensed) return <>{children}</>;
  return (
    <Text span inherit c="dimmed" data-unlicensed="true">
      {children}
    </Text>
  );
}

/** What the columns need from the page: opening a user, and the row's actions menu. */
export interface UserColumnHandlers {
  onView: (user: UserRecord) => void;
  renderActions: (user: UserRecord) => ReactNode;
}

/**
 * The Users table (spec §2): Name, Company, Duration, AuthType, UserName, LastLogin, ActiveSession,
 * all sortable (numbers and dates sort as such), plus the row actions.
 */
export function userColumns(
  t: TFunction,
  { onView, renderActions }: UserColumnHandlers,
): DataTableColumn<UserRecord>[] {
  const yesNo = (value: boolean) => (value ? t('usersScreen.yes') : t('usersScreen.no'));
  return [
    {
      id: 'Name',
      header: t('usersScreen.columns.name'),
      sortable: true,
      accessor: (user) => user.Name,
      render: (user) => (
        <Cell user={user}>
          <Anchor
            component="button"
            type="button"
            c={user.Licensed ? undefined : 'dimmed'}
            onClick={() => onView(user)}
          >
            {user.Name}
          </Anchor>
          {user.Licensed ? null : <VisuallyHidden> ({t('usersScreen.notLicensed')})</VisuallyHidden>}
        </Cell>
      ),
    },
    {
      id: 'Company',
      header: t('usersScreen.columns.company'),
      sortable: true,
      accessor: (user) => user.Company,
      render: (user) => <Cell user={user}>{user.Company}</Cell>,
    },
    {
      id: 'Duration',
      header: t('usersScreen.columns.duration'),
      sortable: true,
      accessor: (user) => user.Duration,
      render: (user) => <Cell user={user}>{t('usersScreen.minutes', { count: user.Duration })}</Cell>,
    },
    {
      id: 'AuthType',
      header: t('usersScreen.columns.authType'),
      sortable: true,
      accessor: (user) => t(`usersScreen.authTypes.${user.AuthType}`),
      render: (user) => <Cell user={user}>{t(`usersScreen.authTypes.${user.AuthType}`)}</Cell>,
    },
    {
      id: 'UserName',
      header: t('usersScreen.columns.userName'),
      sortable: true,
      accessor: (user) => user.UserName,
      render: (user) => <Cell user={user}>{user.UserName}</Cell>,
    },
    {
      id: 'LastLogin',
      header: t('usersScreen.columns.lastLogin'),
      sortable: true,
      // ISO instants sort in time order as text; users who never signed in go last.
      accessor: (user) => user.LastLogin,
      render: (user) => (
        <Cell user={user}>
          {user.LastLogin === null ? t('usersScreen.never') : <RelativeTime date={user.LastLogin} />}
        </Cell>
      ),
    },
    {
      id: 'ActiveSession',
      header: t('usersScreen.columns.activeSession'),
      sortable: true,
      accessor: (user) => yesNo(user.ActiveSession),
      render: (user) => (
        <Badge variant="light" color={user.ActiveSession && user.Licensed ? 'green' : 'gray'}>
          {yesNo(user.ActiveSession)}
        </Badge>
      ),
    },
    {
      id: 'actions',
      header: t('usersScreen.columns.actions'),
      render: renderActions,
      width: 80,
    },
  ];
}
