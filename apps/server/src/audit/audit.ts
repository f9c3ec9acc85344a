import { sql, type Kysely } from 'kysely';
import { AuditDetail, type AuditAction, type AuditEntry, type LogListQuery } from '@postern/protocol';
import type { Database } from '../store/schema.js';
import { uuidv7 } from '../lib/ids.js';
import { preparedQuery } from '../store/prepared-query.js';
import { inBatches } from '../store/batches.js';
import { auditParties } from './parties.js';

/** Prepared: every grant, sign-in and change writes one. */
const insertAuditEntry = preparedQuery(
  (db, id: string, createdAt: number, action: string, detail: string, actor: string | null, target: string | null) =>
    db.insertInto('auditLog').values({ id, createdAt, action, detail, actor, target }),
);

/**
 * Appends one entry to the audit log. Pass the transaction of the change being audited so the entry
 * and the change land together or not at all.
 */
export async function recordAudit(
  db: Kysely<Database>,
  now: number,
  action: AuditAction,
  detail: AuditDetail,
): Promise<void> {
  const { actor, target } = auditParties(action, detail);
  await insertAuditEntry(db, uuidv7(now), now, action, JSON.stringify(detail), actor, target);
}

/**
 * Appends several entries at once, in multi-row inserts (a burst of agent disconnects, say): one
 * statement per few hundred rather than one each.
 */
export async function recordAudits(
  db: Kysely<Database>,
  now: number,
  entries: readonly { action: AuditAction; detail: AuditDetail }[],
): Promise<void> {
  for (const batch of inBatches(entries)) {
    await db
      .insertInto('auditLog')
      .values(
        batch.map(({ action, detail }) => ({
          id: uuidv7(now),
          createdAt: now,
          action,
          detail: JSON.stringify(detail),
          ...auditParties(action, detail),
        })),
      )
      .execute();
  }
}

/** `text` as a LIKE pattern that matches it anywhere, its own `%`, `_` and `\\` taken literally. */
function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

/**
 * The newest entries first, in the API's `{ Date, Entry: { Action: detail }, Actor, Target }` shape,
 * narrowed by `filter` (see LogListQuery): the same SQL on both stores, `lower(…) like` rather than
 * SQLite's case-blind or PostgreSQL's case-sensitive LIKE alone.
 */
export async function recentAudit(
  db: Kysely<Database>,
  limit: number,
  filter: LogListQuery = {},
): Promise<AuditEntry[]> {
  let query = db.selectFrom('auditLog').selectAll();
  if (filter.action !== undefined) query = query.where('action', '=', filter.action);
  for (const column of ['actor', 'target'] as const) {
    const text = filter[column];
    if (text !== undefined) {
      query = query.where(sql<boolean>`lower(${sql.ref(column)}) like lower(${containsPattern(text)}) escape '\\'`);
    }
  }
  if (filter.from !== undefined) query = query.where('createdAt', '>=', Date.parse(filter.from));
  if (filter.to !== undefined) query = query.where('createdAt', '<', Date.parse(filter.to));
  const rows = await query.orderBy('id', 'desc').limit(limit).execute();
  return rows.map((row) => ({
    Date: new Date(row.createdAt).toISOString(),
    Entry: { [row.action]: parseAuditDetail(row.detail) },
    ...(row.actor === null ? {} : { Actor: row.actor }),
    ...(row.target === null ? {} : { Target: row.target }),
  }));
}

/** An entry's stored detail; an unreadable one (never expected) as an empty detail rather than a failure. */
export function parseAuditDetail(text: string): AuditDetail {
  try {
    const parsed = AuditDetail.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}
