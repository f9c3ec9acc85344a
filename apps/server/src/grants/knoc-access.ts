import type { Kysely } from 'kysely';
import type { BackendType } from '@postern/protocol';
import type { Database } from '../store/schema.js';
import { toKnocRow, type KnocRow } from '../knocs/knocs.repo.js';
import { isAgentOnline } from '../agents/agents.service.js';

/** A knoc as the grant engine needs it: the knoc row with where it is enforced. */
export interface GrantableKnoc extends KnocRow {
  backendType: BackendType | null;
  agentId: string | null;
  /** The backend's agent holds a live connection (always true for allowlists, which need none). */
  agentOnline: boolean;
}

/** The knocs with these ids, with their backend and agent. */
export async function grantableKnocs(
  db: Kysely<Database>,
  aclIds: readonly string[],
  now: number,
): Promise<GrantableKnoc[]> {
  if (aclIds.length === 0) return [];
  const rows = await db
    .selectFrom('knocs')
    .leftJoin('backends', 'backends.id', 'knocs.backendId')
    .leftJoin('agents', 'agents.id', 'backends.agentId')
    .selectAll('knocs')
    .select(['backends.type as backendType', 'backends.agentId', 'agents.connectionId', 'agents.lastSeen'])
    .where('knocs.id', 'in', aclIds)
    .orderBy('knocs.description')
    .execute();
  return rows.map((row) => ({
    ...toKnocRow(row),
    backendType: (row.backendType as BackendType | null) ?? null,
    agentId: row.agentId ?? null,
    agentOnline:
      row.backendType === 'allowlist' ||
      isAgentOnline(
        { connectionId: row.connectionId ?? null, lastSeen: row.lastSeen === null ? null : Number(row.lastSeen) },
        now,
      ),
  }));
}
