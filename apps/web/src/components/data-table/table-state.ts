import { ADMIN_TABLE_PAGE_SIZE } from '@postern/protocol';

/** Up to this many pages the pager shows every page number; above it, ellipses (spec). */
const MAX_PAGES_WITHOUT_ELLIPSIS = 8;

/** The sort of a table: which column, which way. */
export interface SortState {
  column: string;
  direction: 'asc' | 'desc';
}

/** What a table needs of a column to search and sort: its id and the value it shows as text. */
export interface ValueColumn<T> {
  id: string;
  /** The cell's value, for search and sort (numbers sort as numbers). */
  accessor?: (row: T) => string | number | null | undefined;
  sortable?: boolean;
}

/** The sort after a click on `column`: the same column flips its direction, another starts ascending. */
export function nextSort(current: SortState | null, column: string): SortState {
  if (current?.column === column) return { column, direction: current.direction === 'asc' ? 'desc' : 'asc' };
  return { column, direction: 'asc' };
}

/** The rows with any column's value containing `query`, ignoring case and surrounding spaces. */
export function searchRows<T>(rows: readonly T[], columns: readonly ValueColumn<T>[], query: string): T[] {
  const needle = query.trim().toLocaleLowerCase();
  if (needle === '') return [...rows];
  return rows.filter((row) =>
    columns.some((column) => {
      const value = column.accessor?.(row);
      return value !== null && value !== undefined && String(value).toLocaleLowerCase().includes(needle);
    }),
  );
}

type CellValue = string | number | null | undefined;

const isEmpty = (value: CellValue): value is null | undefined => value === null || value === undefined;

function compareValues(a: string | number, b: string | number): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b), undefined, { sensitivity: 'base', numeric: true });
}

/** The rows in the order `sort` asks for (stable; unchanged without a sort or a known column). */
export function sortRows<T>(rows: readonly T[], columns: readonly ValueColumn<T>[], sort: SortState | null): T[] {
  const column = sort === null ? undefined : columns.find((candidate) => candidate.id === sort.column);
  const accessor = column?.accessor;
  if (sort === null || accessor === undefined) return [...rows];
  const sign = sort.direction === 'asc' ? 1 : -1;
  return [...rows].sort((a, b) => {
    const [left, right] = [accessor(a), accessor(b)];
    // Empty values go last whatever the direction.
    if (isEmpty(left)) return isEmpty(right) ? 0 : 1;
    if (isEmpty(right)) return -1;
    return sign * compareValues(left, right);
  });
}

/** How many pages `count` rows fill (at least one, so an empty table still has page 1). */
export function pageCount(count: number, pageSize = ADMIN_TABLE_PAGE_SIZE): number {
  return Math.max(1, Math.ceil(count / pageSize));
}

/** The rows of page `page` (1-based). */
export function pageRows<T>(rows: readonly T[], page: number, pageSize = ADMIN_TABLE_PAGE_SIZE): T[] {
  return rows.slice((page - 1) * pageSize, page * pageSize);
}

/** A pager entry: a page number or a gap. */
export type PagerItem = number | 'ellipsis-start' | 'ellipsis-end';

/**
 * The pager's entries: every page when there are 8 or fewer; otherwise the first and last page,
 * the current page with its neighbours, and an ellipsis for each gap, always seven entries.
 */
export function pagerItems(current: number, total: number): PagerItem[] {
  if (total <= MAX_PAGES_WITHOUT_ELLIPSIS) return Array.from({ length: total }, (_, index) => index + 1);
  if (current <= 4) return [1, 2, 3, 4, 5, 'ellipsis-end', total];
  if (current >= total - 3) return [1, 'ellipsis-start', total - 4, total - 3, total - 2, total - 1, total];
  return [1, 'ellipsis-start', current - 1, current, current + 1, 'ellipsis-end', total];
}
