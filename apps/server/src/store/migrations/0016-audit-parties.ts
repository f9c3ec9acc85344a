import type { Kysely } from 'kysely';
import { parseAuditDetail } from '../../audit/audit.js';
import { auditParties } from '../../audit/parties.js';

/** Rows read and rewritten per round of the fill, so a long log never sits in memory at once. */
const FILL_BATCH = 500;

/**
 * `audit_log.actor` and `audit_log.target`: who acted and whom the entry is about, as columns, so the
 * Logs screen can show them apart and the list route can filter on them in SQL. Until now both lived
 * only inside the JSON detail, in fields that name an account's kind rather than its role. Entries
 * already written are filled in by the same rules new writes use (audit/parties.ts), so old and new
 * entries filter alike.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('audit_log').addColumn('actor', 'text').execute();
  await db.schema.alterTable('audit_log').addColumn('target', 'text').execute();
  await db.schema.createIndex('audit_log_actor').on('audit_log').column('actor').execute();
  await db.schema.createIndex('audit_log_target').on('audit_log').column('target').execute();
  await db.schema.createIndex('audit_log_action').on('audit_log').column('action').execute();
  await fillParties(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const index of ['audit_log_action', 'audit_log_target', 'audit_log_actor']) {
    await db.schema.dropIndex(index).execute();
  }
  await db.schema.alterTable('audit_log').dropColumn('target').execute();
  await db.schema.alterTable('audit_log').dropColumn('actor').execute();
}

/** The table as this migration sees it (no camel-case plugin here: column names as stored). */
interface FillSchema {
  audit_log: { id: string; action: string; detail: string; actor: string | null; target: string | null };
}

async function fillParties(db: Kysely<FillSchema>): Promise<void> {
  let after = '';
  for (;;) {
    const rows = await db
      .selectFrom('audit_log')
      .select(['id', 'action', 'detail'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(FILL_BATCH)
      .execute();
    if (rows.length === 0) return;
    // One UPDATE per distinct pair in the batch: a log is mostly a few people doing a few things.
    const idsByPair = new Map<string, { actor: string | null; target: string | null; ids: string[] }>();
    for (const row of rows) {
      const parties = auditParties(row.action, parseAuditDetail(row.detail));
      if (parties.actor === null && parties.target === null) continue;
      const key = JSON.stringify([parties.actor, parties.target]);
      const pair = idsByPair.get(key) ?? { ...parties, ids: [] };
      pair.ids.push(row.id);
      idsByPair.set(key, pair);
    }
    for (const { actor, target, ids } of idsByPair.values()) {
      await db.updateTable('audit_log').set({ actor, target }).where('id', 'in', ids).execute();
    }
    after = rows.at(-1)?.id ?? after;
  }
}
