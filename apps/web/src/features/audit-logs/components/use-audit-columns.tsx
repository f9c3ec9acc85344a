import { useMemo } from 'react';
import { IconListDetails } from '@tabler/icons-react';
import dayjs from 'dayjs';
import { useTranslation } from 'react-i18next';
import type { DataTableColumn } from '@/components/data-table/DataTable';
import { RowAction } from '@/components/RowAction';
import { auditActionKey, type AuditRow } from '../audit-entry';

/**
 * The spec's audit table: date, who acted, whom it was done to (one "user name" column mixed the two),
 * the action (in the admin's language), and a button opening the entry's detail dialog. The date's
 * value is the ISO instant, so it sorts in time order.
 */
export function useAuditColumns(onView: (row: AuditRow) => void): DataTableColumn<AuditRow>[] {
  const { t, i18n } = useTranslation();

  return useMemo(() => {
    const actionText = (row: AuditRow) => t(auditActionKey(row.action), { defaultValue: row.action });
    return [
      {
        id: 'date',
        header: t('logsScreen.columns.date'),
        accessor: (row) => row.date,
        sortable: true,
        render: (row) => (
          <time dateTime={row.date} title={dayjs(row.date).fromNow()} style={{ whiteSpace: 'nowrap' }}>
            {dayjs(row.date).format('L LTS')}
          </time>
        ),
      },
      { id: 'actor', header: t('logsScreen.columns.actor'), accessor: (row) => row.actor, sortable: true },
      { id: 'target', header: t('logsScreen.columns.target'), accessor: (row) => row.target, sortable: true },
      { id: 'action', header: t('logsScreen.columns.action'), accessor: actionText, sortable: true },
      {
        id: 'details',
        header: t('logsScreen.columns.details'),
        width: 80,
        render: (row) => (
          <RowAction
            label={t('logsScreen.view', { date: dayjs(row.date).format('L LTS') })}
            icon={<IconListDetails size={16} aria-hidden />}
            onClick={() => onView(row)}
          />
        ),
      },
    ] satisfies DataTableColumn<AuditRow>[];
    // i18n.language: the texts and date formats change with the language even though `t` keeps its identity.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [t, i18n.language, onView]);
}
