import { AUDIT_LOG_CLEAR_AFTER_DAYS, AuditActions, type AuditEntry, type LogListQuery } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import type { AuditActor } from './actor.js';
import { recentAudit, recordAudit } from './audit.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Most entries the log screen receives. The console pages and searches client-side, so the whole log
 * travels in one answer; this bound keeps that answer (and the server's memory) finite on an install
 * that never clears its log: about 100 000 entries is some tens of megabytes of JSON, years of
 * activity for a typical site. Older entries stay in the store and are reachable once cleared.
 */
const AUDIT_LOG_LIST_CAP = 100_000;

/**
 * The entries the filter selects (every one without), up to the cap, newest first, in the same shape
 * as the admin status's Activity.
 */
export async function listAuditLog(ctx: AppContext, filter: LogListQuery = {}): Promise<AuditEntry[]> {
  return recentAudit(ctx.db, AUDIT_LOG_LIST_CAP, filter);
}

/**
 * Deletes the entries older than AUDIT_LOG_CLEAR_AFTER_DAYS and then records that it did (so the
 * clearing itself is never cleared by its own call), in one transaction. Returns how many went.
 */
export async function clearOldAuditLog(ctx: AppContext, actor: AuditActor): Promise<number> {
  const now = ctx.clock.now();
  const cutoff = now - AUDIT_LOG_CLEAR_AFTER_DAYS * DAY_MS;
  return ctx.db.transaction().execute(async (trx) => {
    const result = await trx.deleteFrom('auditLog').where('createdAt', '<', cutoff).executeTakeFirst();
    const deleted = Number(result.numDeletedRows);
    await recordAudit(trx, now, AuditActions.LogsCleared, { ...actor, Description: String(deleted) });
    return deleted;
  });
}
