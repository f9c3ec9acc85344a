import { AUDIT_DETAIL_FIELDS, type AuditRow } from './audit-entry';

/** Fixed part of the CSV's name, after the date (spec: "the current date plus a fixed suffix"). */
const CSV_NAME_SUFFIX = '-postern-audit.csv';

/**
 * Characters that make a spreadsheet read a cell as a formula (OWASP "CSV injection"): = + - @,
 * and tab and carriage return, which some programs strip before looking at the first character.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV cell: a cell that a spreadsheet would run as a formula gets a leading apostrophe (shown
 * as text, never evaluated); every cell is quoted, with quotes doubled (RFC 4180), so commas, quotes
 * and line breaks inside a value cannot break the columns.
 */
export function csvCell(value: string): string {
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return `"${safe.replaceAll('"', '""')}"`;
}

/** Rows of cells as CSV text, CRLF line ends (RFC 4180). */
export function toCsv(rows: readonly (readonly string[])[]): string {
  return rows.map((row) => row.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

/**
 * The audit log as CSV: a header of the spec's field names, then one line per entry with the date
 * (ISO), the action's name, its text in the admin's language, who acted and on whom, and the inner
 * fields.
 */
export function auditCsv(rows: readonly AuditRow[], actionText: (action: string) => string): string {
  const header = ['Date', 'Action', 'ActionText', 'Actor', 'Target', ...AUDIT_DETAIL_FIELDS];
  const lines = rows.map((row) => [
    row.date,
    row.action,
    actionText(row.action),
    row.actor,
    row.target,
    ...AUDIT_DETAIL_FIELDS.map((field) => row.detail[field] ?? ''),
  ]);
  return toCsv([header, ...lines]);
}

/** The file's name on the local calendar day `now`: 2026-11-24-postern-audit.csv. */
export function auditCsvFileName(now: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}${CSV_NAME_SUFFIX}`;
}
