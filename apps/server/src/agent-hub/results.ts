import type { Kysely } from 'kysely';
import { GrantStatus, type EntryResult } from '@postern/protocol';
import type { Database } from '../store/schema.js';
import type { ServerMetrics } from '../metrics/server-metrics.js';

const CHUNK = 500;

/** The statuses of a grant that is running, whatever its agent last said. */
const RUNNING_STATUSES = [GrantStatus.Pending, GrantStatus.AgentOffline, GrantStatus.GrantError, GrantStatus.Granted];

/**
 * Records what an agent reported about entries on the grants they belong to:
 * add ok → running grants Granted; add failed → GrantError with the device's message;
 * remove ok → ended grants still Revoking become Revoked; remove failed → error on revoke.
 * Only knocs the agent drives are touched, so an agent cannot write another agent's grants.
 * Each grant that changes status is counted once in the metrics (applied with its time from request
 * to confirmation, error, or revoked with its end reason); a repeated report is not counted again.
 */
export async function recordResults(
  db: Kysely<Database>,
  agentId: string,
  results: readonly EntryResult[],
  now: number,
  metrics: ServerMetrics,
): Promise<void> {
  const groups = new Map<
    string,
    { aclId: string; action: 'add' | 'remove'; ok: boolean; error: string; ips: string[] }
  >();
  for (const result of results) {
    const error = result.ok ? '' : result.error.slice(0, 2000);
    const key = `${result.aclId}\u0000${result.action}\u0000${result.ok}\u0000${error}`;
    const group = groups.get(key) ?? { aclId: result.aclId, action: result.action, ok: result.ok, error, ips: [] };
    group.ips.push(result.ip);
    groups.set(key, group);
  }
  if (groups.size === 0) return;

  // The agent's knocs with their backend type (the metrics' label).
  const ownAcls = new Map(
    (
      await db
        .selectFrom('knocs')
        .innerJoin('backends', 'backends.id', 'knocs.backendId')
        .select(['knocs.id', 'backends.type'])
        .where('backends.agentId', '=', agentId)
        .execute()
    ).map((row) => [row.id, row.type]),
  );

  // Before the statuses: whoever waits for a verified entry's Granted finds its read-back with it.
  await recordReadBacks(db, ownAcls, results);
  for (const group of groups.values()) {
    const backendType = ownAcls.get(group.aclId);
    if (backendType === undefined) continue;
    for (let i = 0; i < group.ips.length; i += CHUNK) {
      const ips = group.ips.slice(i, i + CHUNK);
      const base = db.updateTable('grants').where('aclId', '=', group.aclId).where('ip', 'in', ips);
      if (group.action === 'add') {
        const target = group.ok ? GrantStatus.Granted : GrantStatus.GrantError;
        const running = base
          .set(
            group.ok
              ? { status: GrantStatus.Granted, error: '', updatedAt: now }
              : { status: GrantStatus.GrantError, error: group.error, updatedAt: now },
          )
          .where('endedAt', 'is', null)
          .where('expiresAt', '>', now);
        // Grants that change status are counted once; a repeated report only refreshes the row.
        const changed = await running
          .where(
            'status',
            'in',
            RUNNING_STATUSES.filter((status) => status !== target),
          )
          .returning('createdAt')
          .execute();
        await running.where('status', '=', target).execute();
        for (const grant of changed) {
          if (group.ok) metrics.grantApplied(backendType, (now - grant.createdAt) / 1000);
        }
        if (!group.ok) metrics.countGrants('error', backendType, changed.length);
      } else {
        const ended = await base
          .set(
            group.ok
              ? { status: GrantStatus.Revoked, error: '', updatedAt: now }
              : { status: GrantStatus.RevokeError, error: group.error, updatedAt: now },
          )
          .where('endedAt', 'is not', null)
          .where('status', 'in', [GrantStatus.Revoking, GrantStatus.RevokeError])
          .returning('endReason')
          .execute();
        if (group.ok) countRevokes(metrics, backendType, ended);
      }
    }
  }
}

/**
 * Keeps what the agent read back from the device for entries sent with `verify` (a knoc test), on
 * the running grants that asked for it. Rare (one entry per test), so one update per result.
 */
async function recordReadBacks(
  db: Kysely<Database>,
  ownAcls: ReadonlyMap<string, string>,
  results: readonly EntryResult[],
): Promise<void> {
  for (const result of results) {
    if (result.action !== 'add' || result.readBack === undefined || !ownAcls.has(result.aclId)) continue;
    await db
      .updateTable('grants')
      .set({ readBack: result.readBack, readBackDetail: (result.readBackDetail ?? '').slice(0, 1000) })
      .where('aclId', '=', result.aclId)
      .where('ip', '=', result.ip)
      .where('verify', '=', true)
      .where('endedAt', 'is', null)
      .execute();
  }
}

/** Counts the grants whose entry the agent removed, by why they ended. */
function countRevokes(metrics: ServerMetrics, backendType: string, ended: readonly { endReason: string | null }[]) {
  const byReason = new Map<string, number>();
  for (const { endReason } of ended) {
    const reason = endReason ?? 'unknown';
    byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
  }
  for (const [reason, count] of byReason) metrics.grantsEnded(reason, backendType, count);
}

/**
 * The running grants on a knoc the server cannot send to its agent (a secret of it cannot be
 * opened) carry `error` as GrantError: the agent never hears of them, so no result would.
 */
export async function recordKnocNotSent(
  db: Kysely<Database>,
  aclId: string,
  error: string,
  now: number,
): Promise<void> {
  await db
    .updateTable('grants')
    .set({ status: GrantStatus.GrantError, error, updatedAt: now })
    .where('aclId', '=', aclId)
    .where('endedAt', 'is', null)
    .where('expiresAt', '>', now)
    .where('status', 'in', RUNNING_STATUSES)
    .execute();
}
