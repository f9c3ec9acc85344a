import { useMemo, useState } from 'react';
import { ADMIN_TABLE_PAGE_SIZE } from '@postern/protocol';
import { nextSort, pageCount, pageRows, searchRows, sortRows, type SortState, type ValueColumn } from './table-state';

/** Options of {@link useTableState}. */
export interface TableStateOptions {
  /** The search text (from the page's toolbar); case-insensitive, over every column's value. */
  search?: string;
  initialSort?: SortState | null;
  pageSize?: number;
}

/** Search, sort (a second click on the same column reverses it) and paging over in-memory rows. */
export function useTableState<T>(
  rows: readonly T[],
  columns: readonly ValueColumn<T>[],
  options: TableStateOptions = {},
) {
  const { search = '', initialSort = null, pageSize = ADMIN_TABLE_PAGE_SIZE } = options;
  const [sort, setSort] = useState<SortState | null>(initialSort);
  const [requestedPage, setPage] = useState(1);

  const matching = useMemo(() => searchRows(rows, columns, search), [rows, columns, search]);
  const sorted = useMemo(() => sortRows(matching, columns, sort), [matching, columns, sort]);
  const pages = pageCount(sorted.length, pageSize);
  // A narrower search or a deletion can leave the page past the end: show the last one instead.
  const page = Math.min(requestedPage, pages);

  return {
    sort,
    toggleSort: (column: string) => setSort((current) => nextSort(current, column)),
    page,
    setPage,
    pages,
    /** How many rows match the search, over all pages. */
    matchCount: sorted.length,
    visibleRows: pageRows(sorted, page, pageSize),
  };
}

/** What {@link useTableState} returns. */
export type TableState<T> = ReturnType<typeof useTableState<T>>;
