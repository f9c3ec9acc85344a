import { useCallback, useMemo, useState } from 'react';
import { Button } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { IconDownload, IconTrash } from '@tabler/icons-react';
import { AUDIT_LOG_CLEAR_AFTER_DAYS, type LogListQuery } from '@postern/protocol';
import { useTranslation } from 'react-i18next';
import { routeTitleKey, type RoutePageProps } from '@/app/routes/route-types';
import { SearchInput } from '@/components/data-table/SearchInput';
import { AdminPage } from '@/components/AdminPage';
import { DataTable } from '@/components/data-table/DataTable';
import { searchRows } from '@/components/data-table/table-state';
import { ErrorDialog } from '@/components/dialogs/ErrorDialog';
import { useConfirmedActions } from '@/components/dialogs/use-confirmed-actions';
import { useOperation } from '@/components/dialogs/use-operation';
import { QueryState } from '@/components/QueryState';
import { RowActionMenu } from '@/components/RowActionMenu';
import { useAuditLog, useClearOldLogs } from '@/features/audit-logs/api';
import { auditCsv, auditCsvFileName } from '@/features/audit-logs/audit-csv';
import { auditActionKey, toAuditRow, type AuditRow } from '@/features/audit-logs/audit-entry';
import {
  auditFilterProblem,
  auditLogQuery,
  NO_AUDIT_FILTER,
  type AuditFilterValues,
} from '@/features/audit-logs/audit-filter';
import { AuditEntryDialog } from '@/features/audit-logs/components/AuditEntryDialog';
import { AuditFilters } from '@/features/audit-logs/components/AuditFilters';
import { useAuditColumns } from '@/features/audit-logs/components/use-audit-columns';
import { downloadTextFile } from '@/features/audit-logs/download-file';

/** Which dialog is open: the detail of one entry, or none. */
type Operation = { type: 'view'; item: AuditRow };

/** How long the filters rest before the server is asked: one request per pause in typing, not per key. */
const FILTER_DEBOUNCE_MS = 300;

/**
 * The filters as the server is asked for them: the form's, once typing pauses; a range whose end is
 * not after its start keeps the last query that could be asked (the form marks the range).
 */
function useAppliedQuery(filters: AuditFilterValues): LogListQuery {
  const [settled] = useDebouncedValue(filters, FILTER_DEBOUNCE_MS);
  const askable = auditFilterProblem(settled) === null;
  // The last filters that could be asked, kept in state as React adjusts state during a render.
  const [lastAskable, setLastAskable] = useState<AuditFilterValues>(settled);
  if (askable && lastAskable !== settled) setLastAskable(settled);
  return auditLogQuery(askable ? settled : lastAskable);
}

/**
 * Logs (`/admin/logs`): the audit table with filters asked of the server, its CSV (what the filters
 * and the search select), entry details, and, behind a menu and a confirmation, clearing entries
 * older than 30 days.
 */
export default function LogsPage({ route }: RoutePageProps) {
  const { t } = useTranslation();
  const [filters, setFilters] = useState<AuditFilterValues>(NO_AUDIT_FILTER);
  const query = useAppliedQuery(filters);
  const log = useAuditLog(query);
  const clearOld = useClearOldLogs();
  const { operation, open, close } = useOperation<Operation>();
  const { confirm, failure, clearFailure } = useConfirmedActions();
  const [search, setSearch] = useState('');

  const rows = useMemo(() => (log.data ?? []).map((entry, position) => toAuditRow(entry, position)), [log.data]);
  const onView = useCallback((item: AuditRow) => open({ type: 'view', item }), [open]);
  const columns = useAuditColumns(onView);
  const days = AUDIT_LOG_CLEAR_AFTER_DAYS;

  // What the table shows is what is saved: the server's filters, then the search box's.
  const download = () => {
    const fileName = auditCsvFileName(new Date());
    downloadTextFile(
      fileName,
      auditCsv(searchRows(rows, columns, search), (action) => t(auditActionKey(action), { defaultValue: action })),
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
      {/* Destructive and rare: out of the way in a menu, and confirmed before anything goes. */}
      <RowActionMenu
        label={t('logsScreen.more')}
        loading={clearOld.isPending}
        items={[
          {
            label: t('logsScreen.clear', { days }),
            icon: <IconTrash size={16} aria-hidden />,
            onClick: askToClear,
            danger: true,
          },
        ]}
      />
    </>
  );

  return (
    <AdminPage title={t(routeTitleKey(route.id))} toolbar={toolbar}>
      <AuditFilters value={filters} onChange={setFilters} />
      <QueryState data={log.data} isError={log.isError} error={log.error}>
        {() => (
          <DataTable
            label={t('logsScreen.tableLabel')}
            columns={columns}
            rows={rows}
            rowKey={(row) => row.id}
            search={search}
            emptyText={Object.keys(query).length > 0 ? t('logsScreen.emptyFiltered') : t('logsScreen.empty')}
          />
        )}
      </QueryState>
      <AuditEntryDialog row={operation?.type === 'view' ? operation.item : null} onClose={close} />
      <ErrorDialog error={failure} onClose={clearFailure} />
    </AdminPage>
  );
}
