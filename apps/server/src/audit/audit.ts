import type { Kysely } from 'kysely';
import { AuditDetail, type AuditAction, type AuditEntry } from '@postern/protocol';
import type { Database } from '../store/schema.js';
import { uuidv7 } from '../lib/ids.js';
import { preparedQuery } from '../store/prepared-query.js';
import { inBatches } from '../store/batches.js';

/** Prepared: every grant, sign-in and change writes one. */
const insertAuditEntry = preparedQuery((db, id: string, createdAt: number, action: string, detail: string) =>
  db.insertInto('auditLog').values({ id, createdAt, action, detail }),
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
  await insertAuditEntry(db, uuidv7(now), now, action, JSON.stringify(detail));
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
        })),
      )
      .execute();
  }
}

/** The newest entries first, in the API's `{ Date, Entry: { Action: detail } }` shape. */
export async function recentAudit(db: Kysely<Database>, limit: number): Promise<AuditEntry[]> {
  const rows = await db.selectFrom('auditLog').selectAll().orderBy('id', 'desc').limit(limit).execute();
  return rows.map((row) => ({
    Date: new Date(row.createdAt).toISOString(),
    Entry: { [row.action]: parseDetail(row.detail) },
  }));
}

function parseDetail(text: string): AuditDetail {
  try {
    const parsed = AuditDetail.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}
