import type { AuditDetail, AuditEntry } from '@postern/protocol';

/** The inner fields of an entry, in the order the detail dialog and the CSV show them. */
export const AUDIT_DETAIL_FIELDS = [
  'UserName',
  'AdminName',
  'AgentName',
  'IpAddress',
  'AclDescription',
  'Description',
  'ErrorMessage',
] as const satisfies readonly (keyof AuditDetail)[];

/** An audit entry unpacked: its date, its action's name and the action's fields. */
export interface AuditRow {
  /** The entry's position in the server's answer: entries have no id of their own. */
  id: number;
  date: string;
  action: string;
  detail: AuditDetail;
  /** Who acted, as the server drew it from the entry ('' for no one: the server itself). */
  actor: string;
  /** Whom or what it was done to: a user, an admin, a knoc, an agent… ('' for nothing named). */
  target: string;
}

/** Unpacks an entry: `Entry` has exactly one key, the action's name (spec §3). */
export function toAuditRow(entry: AuditEntry, position = 0): AuditRow {
  const [action, detail] = Object.entries(entry.Entry)[0] ?? ['', {}];
  return {
    id: position,
    date: entry.Date,
    action,
    detail,
    actor: entry.Actor ?? '',
    target: entry.Target ?? '',
  };
}

/** The i18n key of an action's name; unknown actions fall back to the raw name at the call site. */
export const auditActionKey = (action: string) => `audit.action.${action}`;
