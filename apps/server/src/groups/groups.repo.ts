import type { Kysely } from 'kysely';
import type { GroupType } from '@postern/protocol';
import type { Database } from '../store/schema.js';
import { inBatches } from '../store/batches.js';

/** A group with its memberships, as the services use it. */
export interface Group {
  id: string;
  name: string;
  description: string;
  type: GroupType;
  aclIds: string[];
  userIds: string[];
  createdAt: number;
  updatedAt: number;
}

export type GroupRow = Omit<Group, 'aclIds' | 'userIds'>;

export async function listGroupRows(db: Kysely<Database>): Promise<GroupRow[]> {
  const rows = await db.selectFrom('groups').selectAll().orderBy('name').execute();
  return rows.map(toRow);
}

export async function findGroupRow(db: Kysely<Database>, id: string): Promise<GroupRow | null> {
  const row = await db.selectFrom('groups').selectAll().where('id', '=', id).executeTakeFirst();
  return row === undefined ? null : toRow(row);
}

export async function findGroupRowsByName(db: Kysely<Database>, names: readonly string[]): Promise<GroupRow[]> {
  const found: GroupRow[] = [];
  for (const batch of inBatches(names)) {
    const rows = await db.selectFrom('groups').selectAll().where('name', 'in', batch).execute();
    found.push(...rows.map(toRow));
  }
  return found;
}

/** ACL ids and user ids of each group named, in stable order; groups without any get empty lists. */
export async function membershipsOf(
  db: Kysely<Database>,
  groupIds: readonly string[] | 'all',
): Promise<Map<string, { aclIds: string[]; userIds: string[] }>> {
  const result = new Map<string, { aclIds: string[]; userIds: string[] }>();
  const entry = (groupId: string) => {
    let found = result.get(groupId);
    if (found === undefined) {
      found = { aclIds: [], userIds: [] };
      result.set(groupId, found);
    }
    return found;
  };
  const batches = groupIds === 'all' ? [null] : inBatches(groupIds);
  for (const batch of batches) {
    if (batch !== null && batch.length === 0) continue;
    let acls = db.selectFrom('groupAcls').select(['groupId', 'aclId']).orderBy('aclId');
    let users = db.selectFrom('groupUsers').select(['groupId', 'userId']).orderBy('userId');
    if (batch !== null) {
      acls = acls.where('groupId', 'in', batch);
      users = users.where('groupId', 'in', batch);
    }
    for (const row of await acls.execute()) entry(row.groupId).aclIds.push(row.aclId);
    for (const row of await users.execute()) entry(row.groupId).userIds.push(row.userId);
  }
  return result;
}

export async function insertGroupRow(db: Kysely<Database>, group: GroupRow): Promise<void> {
  await db.insertInto('groups').values(group).execute();
}

/**
 * Inserts a group unless one with that name exists (another replica may be creating it right now);
 * true when this call created it.
 */
export async function insertGroupRowIfAbsent(db: Kysely<Database>, group: GroupRow): Promise<boolean> {
  const inserted = await db
    .insertInto('groups')
    .values(group)
    .onConflict((conflict) => conflict.column('name').doNothing())
    .returning('id')
    .execute();
  return inserted.length > 0;
}

export async function updateGroupRow(
  db: Kysely<Database>,
  id: string,
  fields: { name: string; description: string; updatedAt: number },
): Promise<void> {
  await db.updateTable('groups').set(fields).where('id', '=', id).execute();
}

/** Deletes the group and (by cascade) its memberships; true when it existed. */
export async function deleteGroupRow(db: Kysely<Database>, id: string): Promise<boolean> {
  const result = await db.deleteFrom('groups').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function replaceGroupAcls(db: Kysely<Database>, groupId: string, aclIds: readonly string[]) {
  await db.deleteFrom('groupAcls').where('groupId', '=', groupId).execute();
  for (const batch of inBatches(aclIds)) {
    await db
      .insertInto('groupAcls')
      .values(batch.map((aclId) => ({ groupId, aclId })))
      .execute();
  }
}

export async function replaceGroupUsers(db: Kysely<Database>, groupId: string, userIds: readonly string[]) {
  await db.deleteFrom('groupUsers').where('groupId', '=', groupId).execute();
  for (const batch of inBatches(userIds)) {
    await db
      .insertInto('groupUsers')
      .values(batch.map((userId) => ({ groupId, userId })))
      .execute();
  }
}

/** The groups a user belongs to, with their types. */
export async function groupsOfUser(db: Kysely<Database>, userId: string): Promise<{ id: string; type: GroupType }[]> {
  const rows = await db
    .selectFrom('groupUsers')
    .innerJoin('groups', 'groups.id', 'groupUsers.groupId')
    .select(['groups.id', 'groups.type'])
    .where('groupUsers.userId', '=', userId)
    .orderBy('groups.id')
    .execute();
  return rows.map((row) => ({ id: row.id, type: row.type as GroupType }));
}

export async function addUserToGroups(db: Kysely<Database>, userId: string, groupIds: readonly string[]) {
  for (const batch of inBatches(groupIds)) {
    await db
      .insertInto('groupUsers')
      .values(batch.map((groupId) => ({ groupId, userId })))
      .onConflict((conflict) => conflict.columns(['groupId', 'userId']).doNothing())
      .execute();
  }
}

export async function removeUserFromGroups(db: Kysely<Database>, userId: string, groupIds: readonly string[]) {
  for (const batch of inBatches(groupIds)) {
    await db.deleteFrom('groupUsers').where('userId', '=', userId).where('groupId', 'in', batch).execute();
  }
}

/** ACLs given to the user directly and through every group they belong to, without repeats. */
export async function aclIdsOfUser(db: Kysely<Database>, userId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('userAcls')
    .select('aclId')
    .where('userId', '=', userId)
    .union(
      db
        .selectFrom('groupAcls')
        .innerJoin('groupUsers', 'groupUsers.groupId', 'groupAcls.groupId')
        .select('groupAcls.aclId')
        .where('groupUsers.userId', '=', userId),
    )
    .execute();
  return rows.map((row) => row.aclId).sort();
}

/** Which of these ids name existing knocs. */
export async function existingKnocIds(db: Kysely<Database>, ids: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (const batch of inBatches(ids)) {
    const rows = await db.selectFrom('knocs').select('id').where('id', 'in', batch).execute();
    for (const row of rows) found.add(row.id);
  }
  return found;
}

/** The existing users among these ids, with how each signs in. */
export async function authTypesOfUsers(db: Kysely<Database>, ids: readonly string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const batch of inBatches(ids)) {
    const rows = await db.selectFrom('users').select(['id', 'authType']).where('id', 'in', batch).execute();
    for (const row of rows) found.set(row.id, row.authType);
  }
  return found;
}

function toRow(row: {
  id: string;
  name: string;
  description: string;
  type: string;
  createdAt: number;
  updatedAt: number;
}): GroupRow {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    type: row.type as GroupType,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
