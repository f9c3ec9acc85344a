import type { Kysely } from 'kysely';
import { GrantType, IpExclusions, NO_IP_EXCLUSIONS, USER_IP_GRANT, type BackendType } from '@postern/protocol';
import type { Database } from '../store/schema.js';
import { bool } from '../lib/rows.js';
import { agentIsOnline } from '../agent-hub/agent-hub.js';

/** A knoc as the grant engine needs it. */
export interface GrantableKnoc {
  id: string;
  description: string;
  url: string;
  icon: string;
  category: string;
  parentId: string | null;
  hideFromUsers: boolean;
  clickToGrant: boolean;
  cgnatOpen: boolean;
  autoBrowseUsers: boolean;
  /** Seconds; 0: only the session limits a grant. */
  maximumGrantDuration: number;
  ipExclusions: IpExclusions;
  grantType: GrantType;
  uriToken: string;
  backendType: BackendType | null;
  agentId: string | null;
  /** The backend's agent holds a live connection (always true for allowlists, which need none). */
  agentOnline: boolean;
}

function parseJson<T>(
  text: string,
  schema: { safeParse(value: unknown): { success: boolean; data?: T } },
  fallback: T,
): T {
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success && parsed.data !== undefined ? parsed.data : fallback;
  } catch {
    return fallback;
  }
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
    .select([
      'knocs.id',
      'knocs.description',
      'knocs.url',
      'knocs.icon',
      'knocs.category',
      'knocs.parentId',
      'knocs.hideFromUsers',
      'knocs.clickToGrant',
      'knocs.cgnatOpen',
      'knocs.autoBrowseUsers',
      'knocs.maximumGrantDuration',
      'knocs.ipExclusions',
      'knocs.grantType',
      'knocs.uriToken',
      'backends.type as backendType',
      'backends.agentId',
      'agents.connectionId',
      'agents.lastSeen',
    ])
    .where('knocs.id', 'in', aclIds)
    .orderBy('knocs.description')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    description: row.description,
    url: row.url,
    icon: row.icon,
    category: row.category,
    parentId: row.parentId,
    hideFromUsers: bool(row.hideFromUsers),
    clickToGrant: bool(row.clickToGrant),
    cgnatOpen: bool(row.cgnatOpen),
    autoBrowseUsers: bool(row.autoBrowseUsers),
    maximumGrantDuration: Number(row.maximumGrantDuration),
    ipExclusions: parseJson(row.ipExclusions, IpExclusions, NO_IP_EXCLUSIONS),
    grantType: parseJson(row.grantType, GrantType, USER_IP_GRANT),
    uriToken: row.uriToken,
    backendType: (row.backendType as BackendType | null) ?? null,
    agentId: row.agentId ?? null,
    agentOnline:
      row.backendType === 'allowlist' ||
      agentIsOnline(
        { connectionId: row.connectionId ?? null, lastSeen: row.lastSeen === null ? null : Number(row.lastSeen) },
        now,
      ),
  }));
}
