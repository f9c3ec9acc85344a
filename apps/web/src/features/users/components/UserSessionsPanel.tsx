import { Badge } from '@mantine/core';
import { IconDoorExit } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { UserSessionRecord } from '@postern/protocol';
import { QueryState } from '@/components/QueryState';
import { RelativeTime } from '@/components/RelativeTime';
import { RowAction } from '@/components/RowAction';
import { DataTable, type DataTableColumn } from '@/components/data-table/DataTable';
import { useUserSessions } from '../user-details-api';
import type { UserActions } from '../use-user-actions';

/** Props of {@link UserSessionsPanel}. */
export interface UserSessionsPanelProps {
  userId: string;
  actions: Pick<UserActions, 'askEndSession' | 'endingSessionId'>;
}

/** The view dialog's Sessions tab: running sessions, each of which can be ended after confirmation. */
export function UserSessionsPanel({ userId, actions }: UserSessionsPanelProps) {
  const { t } = useTranslation();
  const sessions = useUserSessions(userId);
  const columns: DataTableColumn<UserSessionRecord>[] = [
    { id: 'IPAddress', header: t('usersScreen.view.sessionAddress'), accessor: (session) => session.IPAddress },
    {
      id: 'Created',
      header: t('usersScreen.view.sessionCreated'),
      accessor: (session) => session.Created,
      sortable: true,
      render: (session) => <RelativeTime date={session.Created} />,
    },
    {
      id: 'Ends',
      header: t('usersScreen.view.sessionEnds'),
      accessor: (session) => session.Ends,
      sortable: true,
      render: (session) => (
        <>
          <RelativeTime date={session.Ends} />
          {session.KioskMode ? (
            <Badge ml="xs" size="xs" variant="light">
              {t('usersScreen.view.sessionKiosk')}
            </Badge>
          ) : null}
        </>
      ),
    },
    {
      id: 'end',
      header: t('usersScreen.columns.actions'),
      render: (session) => (
        <RowAction
          label={t('usersScreen.view.endSession', { address: session.IPAddress })}
          icon={<IconDoorExit size={18} aria-hidden />}
          onClick={() => actions.askEndSession(session)}
          color="red"
          loading={actions.endingSessionId === session.ID}
        />
      ),
    },
  ];
  return (
    <QueryState data={sessions.data} isError={sessions.isError} error={sessions.error}>
      {(rows) => (
        <DataTable
          label={t('usersScreen.view.sessionsLabel')}
          columns={columns}
          rows={rows}
          rowKey={(session) => session.ID}
          initialSort={{ column: 'Created', direction: 'desc' }}
          emptyText={t('usersScreen.view.noSessions')}
        />
      )}
    </QueryState>
  );
}
