import type { Kysely, Selectable } from 'kysely';
import {
  BackendType,
  GrantType,
  IpExclusions,
  NO_IP_EXCLUSIONS,
  USER_IP_GRANT,
  type GrantType as GrantTypeValue,
  type IpExclusions as IpExclusionsValue,
} from '@postern/protocol';
import type { Database, KnocsTable } from '../store/schema.js';
import { bool } from '../lib/rows.js';
import { inBatches } from '../store/batches.js';

/**
 * A knoc's ACL config as stored: its backend's type and that type's fields. Sensitive script
 * variable values are SecretBox ciphertexts (see knoc-config.ts). `type` is null for a knoc made
 * before it had a backend (membership-only rows of older tests).
 */
export interface StoredAclConfig {
  type: BackendType | null;
  fields: Record<string, unknown>;
}

/** A knoc as the services use it. */
export interface KnocRow {
  id: string;
  description: string;
  url: string;
  icon: string;
  category: string;
  parentId: string | null;
  hideFromAdmins: boolean;
  hideFromUsers: boolean;
  createdAt: number;
  updatedAt: number;
  lastModifiedBy: string;
  backendId: string | null;
  clickToGrant: boolean;
  cgnatOpen: boolean;
  autoBrowseUsers: boolean;
  /** Seconds; 0 for none. */
  maximumGrantDuration: number;
  ipExclusions: IpExclusionsValue;
  grantType: GrantTypeValue;
  config: StoredAclConfig;
  uriToken: string;
}

/** A knoc with where it is enforced: for revoking its grants and telling its agent. */
export interface KnocPlacement {
  id: string;
  description: string;
  backendId: string | null;
  agentId: string | null;
}

/** Who holds a knoc directly: user_acls and group_acls. */
export interface KnocMemberships {
  userIds: string[];
  groupIds: string[];
}

export async function listKnocRows(db: Kysely<Database>): Promise<KnocRow[]> {
  const rows = await db.selectFrom('knocs').selectAll().orderBy('description').orderBy('id').execute();
  return rows.map(toKnocRow);
}

export async function findKnocRow(db: Kysely<Database>, id: string): Promise<KnocRow | null> {
  const row = await db.selectFrom('knocs').selectAll().where('id', '=', id).executeTakeFirst();
  return row === undefined ? null : toKnocRow(row);
}

/** The knocs enforced by a backend, for the agent hub's desired state. */
export async function listKnocRowsOfBackends(db: Kysely<Database>, backendIds: readonly string[]): Promise<KnocRow[]> {
  const found: KnocRow[] = [];
  for (const batch of inBatches(backendIds)) {
    const rows = await db.selectFrom('knocs').selectAll().where('backendId', 'in', batch).orderBy('id').execute();
    found.push(...rows.map(toKnocRow));
  }
  return found;
}

export async function insertKnocRow(db: Kysely<Database>, row: KnocRow): Promise<void> {
  await db.insertInto('knocs').values(toColumns(row)).execute();
}

export async function updateKnocRow(db: Kysely<Database>, row: KnocRow): Promise<void> {
  const { id, createdAt: _createdAt, ...columns } = toColumns(row);
  await db.updateTable('knocs').set(columns).where('id', '=', id).execute();
}

/** Deletes knocs; their children, grants and memberships go by cascade. */
export async function deleteKnocRows(db: Kysely<Database>, ids: readonly string[]): Promise<void> {
  for (const batch of inBatches(ids)) await db.deleteFrom('knocs').where('id', 'in', batch).execute();
}

/** Ids of the children of each knoc named (all knocs when 'all'), in id order. */
export async function childrenOf(
  db: Kysely<Database>,
  parentIds: readonly string[] | 'all',
): Promise<Map<string, string[]>> {
  const result = new Map<string, string[]>();
  const batches = parentIds === 'all' ? [null] : inBatches(parentIds);
  for (const batch of batches) {
    let query = db.selectFrom('knocs').select(['id', 'parentId']).where('parentId', 'is not', null).orderBy('id');
    if (batch !== null) query = query.where('parentId', 'in', batch);
    for (const row of await query.execute()) {
      if (row.parentId === null) continue;
      const list = result.get(row.parentId) ?? [];
      list.push(row.id);
      result.set(row.parentId, list);
    }
  }
  return result;
}

/** The knocs named and all their children, with the agent enforcing each. */
export async function placementsWithChildren(db: Kysely<Database>, ids: readonly string[]): Promise<KnocPlacement[]> {
  const found = new Map<string, KnocPlacement>();
  for (const batch of inBatches(ids)) {
    const rows = await db
      .selectFrom('knocs')
      .leftJoin('backends', 'backends.id', 'knocs.backendId')
      .select(['knocs.id', 'knocs.description', 'knocs.backendId', 'backends.agentId'])
      .where((eb) => eb.or([eb('knocs.id', 'in', batch), eb('knocs.parentId', 'in', batch)]))
      .orderBy('knocs.id')
      .execute();
    for (const row of rows) found.set(row.id, { ...row, agentId: row.agentId ?? null });
  }
  return [...found.values()];
}

/** Ids of the knocs a backend enforces. */
export async function knocIdsOfBackend(db: Kysely<Database>, backendId: string): Promise<string[]> {
  const rows = await db.selectFrom('knocs').select('id').where('backendId', '=', backendId).orderBy('id').execute();
  return rows.map((row) => row.id);
}

/** user_acls and group_acls of each knoc named (or all), in id order. */
export async function membershipsOfKnocs(
  db: Kysely<Database>,
  aclIds: readonly string[] | 'all',
): Promise<Map<string, KnocMemberships>> {
  const result = new Map<string, KnocMemberships>();
  const entry = (aclId: string) => {
    let found = result.get(aclId);
    if (found === undefined) {
      found = { userIds: [], groupIds: [] };
      result.set(aclId, found);
    }
    return found;
  };
  const batches = aclIds === 'all' ? [null] : inBatches(aclIds);
  for (const batch of batches) {
    let users = db.selectFrom('userAcls').select(['aclId', 'userId']).orderBy('userId');
    let groups = db.selectFrom('groupAcls').select(['aclId', 'groupId']).orderBy('groupId');
    if (batch !== null) {
      users = users.where('aclId', 'in', batch);
      groups = groups.where('aclId', 'in', batch);
    }
    for (const row of await users.execute()) entry(row.aclId).userIds.push(row.userId);
    for (const row of await groups.execute()) entry(row.aclId).groupIds.push(row.groupId);
  }
  return result;
}

/** Users who hold the knoc directly or through one of its groups. */
export async function usersWithAccess(db: Kysely<Database>, aclId: string): Promise<Set<string>> {
  const rows = await db
    .selectFrom('userAcls')
    .select('userId')
    .where('aclId', '=', aclId)
    .union(
      db
        .selectFrom('groupAcls')
        .innerJoin('groupUsers', 'groupUsers.groupId', 'groupAcls.groupId')
        .select('groupUsers.userId')
        .where('groupAcls.aclId', '=', aclId),
    )
    .execute();
  return new Set(rows.map((row) => row.userId));
}

/** Gives the knoc to these users directly (user_acls); users who hold it already are left alone. */
export async function addKnocToUsers(db: Kysely<Database>, aclId: string, userIds: readonly string[]): Promise<void> {
  for (const batch of inBatches(userIds)) {
    await db
      .insertInto('userAcls')
      .values(batch.map((userId) => ({ userId, aclId })))
      .onConflict((conflict) => conflict.columns(['userId', 'aclId']).doNothing())
      .execute();
  }
}

/** Gives the knoc to these groups (group_acls); groups that hold it already are left alone. */
export async function addKnocToGroups(db: Kysely<Database>, aclId: string, groupIds: readonly string[]): Promise<void> {
  for (const batch of inBatches(groupIds)) {
    await db
      .insertInto('groupAcls')
      .values(batch.map((groupId) => ({ groupId, aclId })))
      .onConflict((conflict) => conflict.columns(['groupId', 'aclId']).doNothing())
      .execute();
  }
}

/** Makes the knoc's direct users and groups exactly these. */
export async function replaceKnocMemberships(
  db: Kysely<Database>,
  aclId: string,
  memberships: KnocMemberships,
): Promise<void> {
  await db.deleteFrom('userAcls').where('aclId', '=', aclId).execute();
  await db.deleteFrom('groupAcls').where('aclId', '=', aclId).execute();
  await addKnocToUsers(db, aclId, memberships.userIds);
  await addKnocToGroups(db, aclId, memberships.groupIds);
}

/** Which of these ids name existing users. */
export async function existingUserIds(db: Kysely<Database>, ids: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (const batch of inBatches(ids)) {
    const rows = await db.selectFrom('users').select('id').where('id', 'in', batch).execute();
    for (const row of rows) found.add(row.id);
  }
  return found;
}

/** Which of these ids name existing groups. */
export async function existingGroupIds(db: Kysely<Database>, ids: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (const batch of inBatches(ids)) {
    const rows = await db.selectFrom('groups').select('id').where('id', 'in', batch).execute();
    for (const row of rows) found.add(row.id);
  }
  return found;
}

/** A knocs table row as the services use it; unreadable JSON reads as the field's default. */
export function toKnocRow(row: Selectable<KnocsTable>): KnocRow {
  return {
    id: row.id,
    description: row.description,
    url: row.url,
    icon: row.icon,
    category: row.category,
    parentId: row.parentId,
    hideFromAdmins: bool(row.hideFromAdmins),
    hideFromUsers: bool(row.hideFromUsers),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    lastModifiedBy: row.lastModifiedBy,
    backendId: row.backendId,
    clickToGrant: bool(row.clickToGrant),
    cgnatOpen: bool(row.cgnatOpen),
    autoBrowseUsers: bool(row.autoBrowseUsers),
    maximumGrantDuration: Number(row.maximumGrantDuration),
    ipExclusions: parseJson(row.ipExclusions, IpExclusions, NO_IP_EXCLUSIONS),
    grantType: parseJson(row.grantType, GrantType, USER_IP_GRANT),
    config: parseStoredConfig(row.config),
    uriToken: row.uriToken,
  };
}

function toColumns(row: KnocRow) {
  return {
    id: row.id,
    description: row.description,
    url: row.url,
    icon: row.icon,
    category: row.category,
    parentId: row.parentId,
    hideFromAdmins: row.hideFromAdmins,
    hideFromUsers: row.hideFromUsers,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    lastModifiedBy: row.lastModifiedBy,
    backendId: row.backendId,
    clickToGrant: row.clickToGrant,
    cgnatOpen: row.cgnatOpen,
    autoBrowseUsers: row.autoBrowseUsers,
    maximumGrantDuration: row.maximumGrantDuration,
    ipExclusions: JSON.stringify(row.ipExclusions),
    grantType: JSON.stringify(row.grantType),
    config: JSON.stringify(row.config.type === null ? {} : { [row.config.type]: row.config.fields }),
    uriToken: row.uriToken,
  };
}

function parseStoredConfig(text: string): StoredAclConfig {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { type: null, fields: {} };
    const [entry] = Object.entries(parsed as Record<string, unknown>);
    if (entry === undefined) return { type: null, fields: {} };
    const [key, fields] = entry;
    const type = BackendType.safeParse(key);
    if (!type.success || typeof fields !== 'object' || fields === null) return { type: null, fields: {} };
    return { type: type.data, fields: fields as Record<string, unknown> };
  } catch {
    return { type: null, fields: {} };
  }
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
