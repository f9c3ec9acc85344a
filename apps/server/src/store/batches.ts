/**
 * Rows per multi-row INSERT and values per IN list. Both stores cap bound parameters (SQLite 32766,
 * PostgreSQL 65535); 500 keeps every statement far below either.
 */
const BATCH = 500;

export function inBatches<T>(items: readonly T[], size = BATCH): T[][] {
  const batches: T[][] = [];
  for (let i = 0; i < items.length; i += size) batches.push(items.slice(i, i + size));
  return batches;
}
