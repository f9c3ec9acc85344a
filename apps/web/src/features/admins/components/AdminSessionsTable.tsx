import { useMemo } from 'react';
import { Badge, Group, Text } from '@mantine/core';
import { IconPlugConnectedX } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { AdminRecord, AdminSessionRecord } from '@postern/protocol';
import { RowAction } from '@/components/RowAction';
import { DataTable, type DataTableColumn } from '@/components/data-table/DataTable';
import { QueryState } from '@/components/QueryState';
import { RelativeTime } from '@/components/RelativeTime';
import { useAdminSessions } from '../admin-sessions-api';

/** Props of {@link AdminSessionsTable}. */
export interface AdminSessionsTableProps {
  admin: AdminRecord;
  /** Asks before ending one session. */
  onEnd: (session: AdminSessionRecord) => void;
}

/** The admin's running sessions (Created, IPAddress, Ends), newest first, each with an "End session" action. */
export function AdminSessionsTable({ admin, onEnd }: AdminSessionsTableProps) {
  const { t } = useTranslation();
  const sessions = useAdminSessions(admin.ID);
  const columns = useMemo<DataTableColumn<AdminSessionRecord>[]>(
    () => [
      {
        id: 'created',
        header: t('adminsScreen.sessions.created'),
        accessor: (session) => session.Created,
        sortable: true,
        render: (session) => <RelativeTime date={session.Created} />,
      },
      {
        id: 'ip',
        header: t('adminsScreen.sessions.ipAddress'),
        accessor: (session) => session.IPAddress,
        sortable: true,
        render: (session) => (
          <Group gap="xs" wrap="nowrap">
            <Text size="sm">{session.IPAddress}</Text>
            {session.Current ? <Badge variant="outline">{t('adminsScreen.sessions.current')}</Badge> : null}
          </Group>
        ),
      },
      {
        id: 'ends',
        header: t('adminsScreen.sessions.ends'),
        accessor: (session) => session.Ends,
        sortable: true,
        render: (session) => <RelativeTime date={session.Ends} />,
      },
      {
        id: 'actions',
        header: t('adminsScreen.columns.actions'),
        render: (session) => (
          <RowAction
            label={t('adminsScreen.sessions.end', { ip: session.IPAddress })}
            icon={<IconPlugConnectedX size={18} aria-hidden />}
            onClick={() => onEnd(session)}
            color="red"
          />
        ),
      },
    ],
    [t, onEnd],
  );

  return (
    <QueryState {...sessions}>
      {(rows) => (
        <DataTable
          label={t('adminsScreen.sessions.label', { name: admin.Name })}
          columns={columns}
          rows={rows}
          rowKey={(session) => session.ID}
          initialSort={{ column: 'created', direction: 'desc' }}
          emptyText={t('adminsScreen.sessions.empty')}
        />
      )}
    </QueryState>
  );
}
