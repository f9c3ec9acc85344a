import { useCallback, useMemo, useState } from 'react';
import { Button } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconDownload, IconTrash } from '@tabler/icons-react';
import { AUDIT_LOG_CLEAR_AFTER_DAYS } from '@postern/protocol';
import { useTranslation } from 'react-i18next';
import { routeTitleKey, type RoutePageProps } from '@/app/routes/route-types';
import { SearchInput } from '@/components/data-table/SearchInput';
import { AdminPage } from '@/components/AdminPage';
import { DataTable } from '@/components/data-table/DataTable';
import { ErrorDialog } from '@/components/dialogs/ErrorDialog';
import { useConfirmedActions } from '@/components/dialogs/use-confirmed-actions';
import { useOperation } from '@/components/dialogs/use-operation';
import { QueryState } from '@/components/QueryState';
import { useAuditLog, useClearOldLogs } from '@/features/audit-logs/api';
import { auditCsv, auditCsvFileName } from '@/features/audit-logs/audit-csv';
import { auditActionKey, toAuditRow, type AuditRow } from '@/features/audit-logs/audit-entry';
import { AuditEntryDialog } from '@/features/audit-logs/components/AuditEntryDialog';
import { useAuditColumns } from '@/features/audit-logs/components/use-audit-columns';
import { downloadTextFile } from '@/features/audit-logs/download-file';

/** Which dialog is open: the detail of one entry, or none. */
type Operation = { type: 'view'; item: AuditRow };

/** Logs (`/admin/logs`): the audit table, its CSV, entry details, clearing entries older than 30 days. */
export default function LogsPage({ route }: RoutePageProps) {
  const { t } = useTranslation();
  const log = useAuditLog();
  const clearOld = useClearOldLogs();
  const { operation, open, close } = useOperation<Operation>();
  const { confirm, failure, clearFailure } = useConfirmedActions();
  const [search, setSearch] = useState('');

  const rows = useMemo(() => (log.data ?? []).map((entry, position) => toAuditRow(entry, position)), [log.data]);
  const onView = useCallback((item: AuditRow) => open({ type: 'view', item }), [open]);
  const columns = useAuditColumns(onView);
  const days = AUDIT_LOG_CLEAR_AFTER_DAYS;

  const download = () => {
    const fileName = auditCsvFileName(new Date());
    downloadTextFile(
      fileName,
      auditCsv(rows, (action) => t(auditActionKey(action), { defaultValue: action })),
    );
    notifications.show({ color: 'green', message: t('logsScreen.notify.downloaded', { fileName }) });
  };

  const askToClear = () =>
    confirm({
      title: t('logsScreen.clearConfirm.title'),
      message: t('logsScreen.clearConfirm.message', { days }),
      confirmLabel: t('logsScreen.clearConfirm.confirm'),
      mutation: clearOld,
      variables: undefined,
      done: ({ Deleted }) => t('logsScreen.notify.cleared', { count: Deleted }),
    });

  const toolbar = (
    <>
      <SearchInput value={search} onChange={setSearch} label={t('logsScreen.searchLabel')} />
      <Button
        variant="default"
        leftSection={<IconDownload size={16} aria-hidden />}
        disabled={log.data === undefined}
        onClick={download}
      >
        {t('logsScreen.download')}
      </Button>
      <Button
        color="red"
        variant="light"
        leftSection={<IconTrash size={16} aria-hidden />}
        loading={clearOld.isPending}
        onClick={askToClear}
      >
        {t('logsScreen.clear', { days })}
      </Button>
    </>
  );

  return (
    <AdminPage title={t(routeTitleKey(route.id))} toolbar={toolbar}>
      <QueryState data={log.data} isError={log.isError} error={log.error}>
        {() => (
          <DataTable
            label={t('logsScreen.tableLabel')}
            columns={columns}
            rows={rows}
            rowKey={(row) => row.id}
            search={search}
            emptyText={t('logsScreen.empty')}
          />
        )}
      </QueryState>
      <AuditEntryDialog row={operation?.type === 'view' ? operation.item : null} onClose={close} />
      <ErrorDialog error={failure} onClose={clearFailure} />
    </AdminPage>
  );
}
