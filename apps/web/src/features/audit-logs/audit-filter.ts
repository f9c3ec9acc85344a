import type { LogListQuery } from '@postern/protocol';

/**
 * The Logs screen's filters as the form holds them: an action's name or null for any, texts the
 * actor's and target's names must contain, and the range's ends as `<input type="datetime-local">`
 * writes them (local wall time, `2026-11-24T09:30`), empty for open.
 */
export interface AuditFilterValues {
  action: string | null;
  actor: string;
  target: string;
  from: string;
  to: string;
}

export const NO_AUDIT_FILTER: AuditFilterValues = { action: null, actor: '', target: '', from: '', to: '' };

/** A local wall time from a datetime-local input as an ISO instant (UTC), or undefined when empty or unreadable. */
function localToIso(value: string): string | undefined {
  if (value.trim() === '') return undefined;
  // A date-time without an offset is local time (ECMAScript), which is what the admin typed.
  const time = new Date(value).getTime();
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

/** Why the filters cannot be asked for as they are: the range's end not after its start. */
export function auditFilterProblem(values: AuditFilterValues): 'rangeOrder' | null {
  const from = localToIso(values.from);
  const to = localToIso(values.to);
  return from !== undefined && to !== undefined && Date.parse(to) <= Date.parse(from) ? 'rangeOrder' : null;
}

/** The list route's query for the filters (GET /api/admin/logs, see LogListQuery): only what is set. */
export function auditLogQuery(values: AuditFilterValues): LogListQuery {
  const query: Record<string, string> = {};
  if (values.action !== null && values.action !== '') query.action = values.action;
  const actor = values.actor.trim();
  if (actor !== '') query.actor = actor;
  const target = values.target.trim();
  if (target !== '') query.target = target;
  const from = localToIso(values.from);
  if (from !== undefined) query.from = from;
  const to = localToIso(values.to);
  if (to !== undefined) query.to = to;
  return query;
}

/** The query as a URL's search part: `?actor=ops&from=…`, or '' for none. */
export function auditLogSearch(query: LogListQuery): string {
  const params = new URLSearchParams(
    Object.entries(query).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  ).toString();
  return params === '' ? '' : `?${params}`;
}

/** Whether any filter is set. */
export const isFiltered = (values: AuditFilterValues) => Object.keys(auditLogQuery(values)).length > 0;
