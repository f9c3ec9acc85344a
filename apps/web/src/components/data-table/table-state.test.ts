import { describe, expect, it } from 'vitest';
import { nextSort, pageCount, pageRows, pagerItems, searchRows, sortRows, type ValueColumn } from './table-state';

interface Row {
  name: string;
  size: number | null;
}
const COLUMNS: ValueColumn<Row>[] = [
  { id: 'name', accessor: (row) => row.name, sortable: true },
  { id: 'size', accessor: (row) => row.size, sortable: true },
];
const ROWS: Row[] = [
  { name: 'beta', size: 10 },
  { name: 'Alpha', size: 9 },
  { name: 'gamma', size: null },
];

describe('nextSort', () => {
  it.each([
    [null, 'name', { column: 'name', direction: 'asc' }],
    [{ column: 'name', direction: 'asc' } as const, 'name', { column: 'name', direction: 'desc' }],
    [{ column: 'name', direction: 'desc' } as const, 'name', { column: 'name', direction: 'asc' }],
    [{ column: 'name', direction: 'desc' } as const, 'size', { column: 'size', direction: 'asc' }],
  ])('from %j, a click on %s gives %j', (current, column, expected) => {
    expect(nextSort(current, column)).toEqual(expected);
  });
});

describe('searchRows', () => {
  it.each([
    ['', ['beta', 'Alpha', 'gamma']],
    ['ALP', ['Alpha']],
    ['  a  ', ['beta', 'Alpha', 'gamma']],
    ['10', ['beta']],
    ['zeta', []],
  ])('"%s" finds %j', (query, names) => {
    expect(searchRows(ROWS, COLUMNS, query).map((row) => row.name)).toEqual(names);
  });
});

describe('sortRows', () => {
  it.each([
    [null, ['beta', 'Alpha', 'gamma']],
    [{ column: 'name', direction: 'asc' } as const, ['Alpha', 'beta', 'gamma']],
    [{ column: 'name', direction: 'desc' } as const, ['gamma', 'beta', 'Alpha']],
    [{ column: 'size', direction: 'asc' } as const, ['Alpha', 'beta', 'gamma']],
    [{ column: 'size', direction: 'desc' } as const, ['beta', 'Alpha', 'gamma']],
  ])('%j orders %j (case-insensitive, empty values last)', (sort, names) => {
    expect(sortRows(ROWS, COLUMNS, sort).map((row) => row.name)).toEqual(names);
  });
});

describe('paging', () => {
  it.each([
    [0, 1],
    [25, 1],
    [26, 2],
    [200, 8],
    [201, 9],
  ])('%i rows make %i pages of 25', (count, pages) => {
    expect(pageCount(count)).toBe(pages);
  });

  it('takes 25 rows a page', () => {
    const rows = Array.from({ length: 60 }, (_, index) => index);
    expect(pageRows(rows, 1)).toHaveLength(25);
    expect(pageRows(rows, 3)).toEqual([50, 51, 52, 53, 54, 55, 56, 57, 58, 59]);
  });
});

describe('pagerItems', () => {
  it.each([
    [1, 1, [1]],
    [3, 8, [1, 2, 3, 4, 5, 6, 7, 8]],
    [1, 9, [1, 2, 3, 4, 5, 'ellipsis-end', 9]],
    [4, 20, [1, 2, 3, 4, 5, 'ellipsis-end', 20]],
    [5, 20, [1, 'ellipsis-start', 4, 5, 6, 'ellipsis-end', 20]],
    [16, 20, [1, 'ellipsis-start', 15, 16, 17, 'ellipsis-end', 20]],
    [17, 20, [1, 'ellipsis-start', 16, 17, 18, 19, 20]],
    [20, 20, [1, 'ellipsis-start', 16, 17, 18, 19, 20]],
  ])('page %i of %i shows %j', (current, total, items) => {
    expect(pagerItems(current, total)).toEqual(items);
  });
});
