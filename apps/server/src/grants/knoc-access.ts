import type { Kysely } from 'kysely';
import type { BackendType } from '@postern/protocol';
import type { Database } from '../store/schema.js';
import { toKnocRow, type KnocRow } from '../knocs/knocs.repo.js';
import { isAgentOnline } from '../agents/agents.service.js';
import { preparedQuery } from '../store/prepared-query.js';

/** A knoc as the grant engine needs it: the knoc row with where it is enforced. */
export interface GrantableKnoc extends KnocRow {
  backendType: BackendType | null;
  agentId: string | null;
  /** The backend's agent holds a live connection (always true for allowlists, which need none). */
  agentOnline: boolean;
}

/** Knocs with their backend and agent, as grantableKnocs reads them; narrowed by the caller. */
function knocsWithBackends(db: Kysely<Database>) {
  return db
    .selectFrom('knocs')
    .leftJoin('backends', 'backends.id', 'knocs.backendId')
    .leftJoin('agents', 'agents.id', 'backends.agentId')
    .selectAll('knocs')
    .select(['backends.type as backendType', 'backends.agentId', 'agents.connectionId', 'agents.lastSeen']);
}

type KnocWithBackendRow = Awaited<ReturnType<ReturnType<typeof knocsWithBackends>['execute']>>[number];

/** The knocs with these ids, with their backend and agent. */
export async function grantableKnocs(
  db: Kysely<Database>,
  aclIds: readonly string[],
  now: number,
): Promise<GrantableKnoc[]> {
  if (aclIds.length === 0) return [];
  const rows = await knocsWithBackends(db).where('knocs.id', 'in', aclIds).orderBy('knocs.description').execute();
  return rows.map((row) => toGrantableKnoc(row, now));
}

/** The passive+ children of these knocs, each with its parent's id. */
export async function childIdsOf(db: Kysely<Database>, parentIds: readonly string[]): Promise<Map<string, string>> {
  if (parentIds.length === 0) return new Map();
  const rows = await db.selectFrom('knocs').select(['id', 'parentId']).where('parentId', 'in', parentIds).execute();
  return new Map(rows.flatMap((row) => (row.parentId === null ? [] : [[row.id, row.parentId] as const])));
}

/** A passive+ knoc's hidden children, granted and revoked with it. */
export async function childKnocs(db: Kysely<Database>, parentId: string, now: number): Promise<GrantableKnoc[]> {
  const rows = await knocsWithBackends(db)
    .where('knocs.parentId', '=', parentId)
    .orderBy('knocs.description')
    .execute();
  return rows.map((row) => toGrantableKnoc(row, now));
}

/** A knoc the user may see (directly or through a group) and its passive+ children. */
const knocOfUserAndChildren = preparedQuery((db, userId: string, aclId: string) =>
  knocsWithBackends(db)
    .where((eb) =>
      eb.or([
        eb.and([
          eb('knocs.id', '=', aclId),
          eb.or([
            eb.exists(
              eb
                .selectFrom('userAcls')
                .select('userAcls.aclId')
                .where('userAcls.userId', '=', userId)
                .where('userAcls.aclId', '=', aclId),
            ),
            eb.exists(
              eb
                .selectFrom('groupAcls')
                .innerJoin('groupUsers', 'groupUsers.groupId', 'groupAcls.groupId')
                .select('groupAcls.aclId')
                .where('groupUsers.userId', '=', userId)
                .where('groupAcls.aclId', '=', aclId),
            ),
          ]),
        ]),
        eb('knocs.parentId', '=', aclId),
      ]),
    )
    .orderBy('knocs.description'),
);

/**
 * One knoc when the user may see it (directly or through a group), with its passive+ children
 * (hidden knocs granted and revoked with it), in one prepared query: this is on every grant's and
 * revoke's path, ahead of the message that changes the firewall.
 */
export async function knocOfUserWithChildren(
  db: Kysely<Database>,
  userId: string,
  aclId: string,
  now: number,
): Promise<{ knoc: GrantableKnoc; children: GrantableKnoc[] } | undefined> {
  const knocs = (await knocOfUserAndChildren(db, userId, aclId)).map((row) => toGrantableKnoc(row, now));
  const knoc = knocs.find((candidate) => candidate.id === aclId);
  // A knoc without a backend enforces nothing: there is nothing to grant or revoke.
  if (knoc === undefined || knoc.backendType === null) return undefined;
  return { knoc, children: knocs.filter((candidate) => candidate.id !== aclId) };
}

function toGrantableKnoc(row: KnocWithBackendRow, now: number): GrantableKnoc {
  return {
    ...toKnocRow(row),
    backendType: (row.backendType as BackendType | null) ?? null,
    agentId: row.agentId ?? null,
    agentOnline:
      row.backendType === 'allowlist' ||
      isAgentOnline(
        { connectionId: row.connectionId ?? null, lastSeen: row.lastSeen === null ? null : Number(row.lastSeen) },
        now,
      ),
  };
}
