import type { ReactNode } from 'react';
import { Anchor, Badge, VisuallyHidden } from '@mantine/core';
import type { TFunction } from 'i18next';
import type { UserRecord } from '@postern/protocol';
import { RelativeTime } from '@/components/RelativeTime';
import type { DataTableColumn, DataTableRowProps } from '@/components/data-table/DataTable';

/**
 * The props of a user's row: an unlicensed user is greyed out (spec: "A user whose Licensed is false
 * shows greyed out"), which the Name cell also says to screen readers.
 */
export function userRowProps(user: UserRecord): DataTableRowProps {
  return user.Licensed ? {} : { c: 'dimmed', 'data-unlicensed': 'true' };
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
        <>
          <Anchor
            component="button"
            type="button"
            c={user.Licensed ? undefined : 'dimmed'}
            onClick={() => onView(user)}
          >
            {user.Name}
          </Anchor>
          {user.Licensed ? null : <VisuallyHidden> ({t('usersScreen.notLicensed')})</VisuallyHidden>}
        </>
      ),
    },
    {
      id: 'Company',
      header: t('usersScreen.columns.company'),
      sortable: true,
      accessor: (user) => user.Company,
    },
    {
      id: 'Duration',
      header: t('usersScreen.columns.duration'),
      sortable: true,
      accessor: (user) => user.Duration,
      render: (user) => t('usersScreen.minutes', { count: user.Duration }),
    },
    {
      id: 'AuthType',
      header: t('usersScreen.columns.authType'),
      sortable: true,
      accessor: (user) => t(`usersScreen.authTypes.${user.AuthType}`),
    },
    {
      id: 'UserName',
      header: t('usersScreen.columns.userName'),
      sortable: true,
      accessor: (user) => user.UserName,
    },
    {
      id: 'LastLogin',
      header: t('usersScreen.columns.lastLogin'),
      sortable: true,
      // ISO instants sort in time order as text; users who never signed in go last.
      accessor: (user) => user.LastLogin,
      render: (user) => (user.LastLogin === null ? t('usersScreen.never') : <RelativeTime date={user.LastLogin} />),
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
