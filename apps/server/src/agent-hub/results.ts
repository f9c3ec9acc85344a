import type { Kysely } from 'kysely';
import { GrantStatus, type EntryResult } from '@postern/protocol';
import type { Database } from '../store/schema.js';

const CHUNK = 500;

/**
 * Records what an agent reported about entries on the grants they belong to:
 * add ok → running grants Granted; add failed → GrantError with the device's message;
 * remove ok → ended grants still Revoking become Revoked; remove failed → error on revoke.
 * Only knocs the agent drives are touched, so an agent cannot write another agent's grants.
 */
export async function recordResults(
  db: Kysely<Database>,
  agentId: string,
  results: readonly EntryResult[],
  now: number,
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

  const ownAcls = new Set(
    (
      await db
        .selectFrom('knocs')
        .innerJoin('backends', 'backends.id', 'knocs.backendId')
        .select('knocs.id')
        .where('backends.agentId', '=', agentId)
        .execute()
    ).map((row) => row.id),
  );

  for (const group of groups.values()) {
    if (!ownAcls.has(group.aclId)) continue;
    for (let i = 0; i < group.ips.length; i += CHUNK) {
      const ips = group.ips.slice(i, i + CHUNK);
      const base = db.updateTable('grants').where('aclId', '=', group.aclId).where('ip', 'in', ips);
      if (group.action === 'add') {
        await base
          .set(
            group.ok
              ? { status: GrantStatus.Granted, error: '', updatedAt: now }
              : { status: GrantStatus.GrantError, error: group.error, updatedAt: now },
          )
          .where('endedAt', 'is', null)
          .where('expiresAt', '>', now)
          .where('status', 'in', [
            GrantStatus.Pending,
            GrantStatus.AgentOffline,
            GrantStatus.GrantError,
            GrantStatus.Granted,
          ])
          .execute();
      } else {
        await base
          .set(
            group.ok
              ? { status: GrantStatus.Revoked, error: '', updatedAt: now }
              : { status: GrantStatus.RevokeError, error: group.error, updatedAt: now },
          )
          .where('endedAt', 'is not', null)
          .where('status', 'in', [GrantStatus.Revoking, GrantStatus.RevokeError])
          .execute();
      }
    }
  }
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
    .where('status', 'in', [GrantStatus.Pending, GrantStatus.AgentOffline, GrantStatus.GrantError, GrantStatus.Granted])
    .execute();
}
