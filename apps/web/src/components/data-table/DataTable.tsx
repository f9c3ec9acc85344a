import type { ReactNode } from 'react';
import { Stack, Table, Text, UnstyledButton, type TableTrProps } from '@mantine/core';
import { IconArrowsSort, IconSortAscending, IconSortDescending } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Pager } from './Pager';
import type { SortState, ValueColumn } from './table-state';
import { useTableState } from './use-table-state';

/** One column of a {@link DataTable}, as data. */
export interface DataTableColumn<T> extends ValueColumn<T> {
  /** The header text, already translated. */
  header: string;
  /** The cell; defaults to the accessor's value. */
  render?: (row: T) => ReactNode;
  width?: number | string;
}

/** Extra props of one row's `<tr>`: style props (`c: 'dimmed'`) and `data-` attributes. */
export type DataTableRowProps = TableTrProps & { [attribute: `data-${string}`]: string | undefined };

/** Props of {@link DataTable}. */
export interface DataTableProps<T> {
  /** Accessible name of the table. */
  label: string;
  columns: readonly DataTableColumn<T>[];
  rows: readonly T[];
  rowKey: (row: T) => string | number;
  /** The search text from the page's toolbar. */
  search?: string;
  initialSort?: SortState | null;
  /** Shown when there are no rows at all (default: "Nothing to show"). */
  emptyText?: string;
  /**
   * The narrowest the table gets before it scrolls sideways in its container (default 480 px). A
   * table of badges needs more: a badge gives up its text to an ellipsis before its column widens.
   */
  minWidth?: number;
  /** Per-row props, e.g. a greyed-out row; none by default. */
  rowProps?: (row: T) => DataTableRowProps;
}

function SortIcon({ direction }: { direction: SortState['direction'] | null }) {
  const Icon = direction === 'asc' ? IconSortAscending : direction === 'desc' ? IconSortDescending : IconArrowsSort;
  return <Icon size={14} aria-hidden style={{ marginLeft: 4, verticalAlign: 'middle' }} />;
}

/**
 * The admin screens' table: columns as data, case-insensitive search over their values, sorting by
 * a header click (again to reverse) and the spec's pager of 25 rows a page.
 */
export function DataTable<T>({
  label,
  columns,
  rows,
  rowKey,
  search = '',
  initialSort,
  emptyText,
  minWidth = 480,
  rowProps,
}: DataTableProps<T>) {
  const { t } = useTranslation();
  const table = useTableState(rows, columns, { search, initialSort });

  const empty =
    rows.length === 0 ? (emptyText ?? t('table.empty')) : table.matchCount === 0 ? t('table.noMatches') : null;

  return (
    <Stack gap="sm">
      <Table.ScrollContainer minWidth={minWidth}>
        <Table striped highlightOnHover aria-label={label}>
          <Table.Thead>
            <Table.Tr>
              {columns.map((column) => {
                const direction = table.sort?.column === column.id ? table.sort.direction : null;
                return (
                  <Table.Th
                    key={column.id}
                    scope="col"
                    w={column.width}
                    aria-sort={direction === null ? undefined : direction === 'asc' ? 'ascending' : 'descending'}
                  >
                    {column.sortable === true ? (
                      <UnstyledButton fw={700} fz="sm" onClick={() => table.toggleSort(column.id)}>
                        {column.header}
                        <SortIcon direction={direction} />
                      </UnstyledButton>
                    ) : (
                      column.header
                    )}
                  </Table.Th>
                );
              })}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {table.visibleRows.map((row) => (
              <Table.Tr key={rowKey(row)} {...rowProps?.(row)}>
                {columns.map((column) => (
                  <Table.Td key={column.id}>{column.render?.(row) ?? column.accessor?.(row) ?? null}</Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {empty === null ? null : (
        <Text c="dimmed" role="status">
          {empty}
        </Text>
      )}
      <Pager page={table.page} pages={table.pages} onChange={table.setPage} />
    </Stack>
  );
}
