import { endGrantsWithoutAccess } from '../grants/access-changes.js';
import type { AgentEntryKey } from '../grants/agent-sync.js';
import type { Kysely } from 'kysely';
import {
  AuditActions,
  ErrorCodes,
  type GroupCreateBody,
  type GroupRecord,
  type GroupType,
  type GroupUpdateBody,
} from '@postern/protocol';
import type { AuditActor } from '../audit/actor.js';
import type { AppContext } from '../app-context.js';
import type { Database } from '../store/schema.js';
import { recordAudit } from '../audit/audit.js';
import { BadRequestError, ConflictError, NotFoundError } from '../errors.js';
import { uuidv7 } from '../lib/ids.js';
import { isUniqueViolation } from '../lib/unique-violation.js';
import {
  aclIdsOfUser,
  addUserToGroups,
  authTypesOfUsers,
  deleteGroupRow,
  existingKnocIds,
  findGroupRow,
  findGroupRowsByName,
  groupsOfUser,
  insertGroupRow,
  insertGroupRowIfAbsent,
  listGroupRows,
  membershipsOf,
  removeUserFromGroups,
  replaceGroupAcls,
  replaceGroupUsers,
  updateGroupRow,
  type GroupRow,
} from './groups.repo.js';

/** Group types whose members come from SAML assertions, never from an admin's list. */
const ASSERTION_MEMBERSHIP: readonly GroupType[] = ['saml', 'dynamic'];

/** How many unknown ids an error names before it stops listing. */
const IDS_NAMED_IN_ERRORS = 5;

export async function listGroups(ctx: AppContext): Promise<GroupRecord[]> {
  const rows = await listGroupRows(ctx.db);
  const memberships = await membershipsOf(ctx.db, 'all');
  return rows.map((row) => toRecord(row, memberships.get(row.id)));
}

/** One group, or 404. */
export async function getGroup(ctx: AppContext, id: string): Promise<GroupRecord> {
  const group = await readGroup(ctx.db, id);
  if (group === null) throw new NotFoundError({ extra: 'group' });
  return group;
}

/**
 * Creates a group with its ACLs and (local groups only) its members, and audits it, in one
 * transaction. Names are unique: 409 err.groupNameExists, also when two admins race for one name.
 */
export async function createGroup(ctx: AppContext, actor: AuditActor, body: GroupCreateBody): Promise<GroupRecord> {
  const now = ctx.clock.now();
  const aclIds = unique(body.ACLIDs);
  const userIds = unique(body.UserIDs);
  if (ASSERTION_MEMBERSHIP.includes(body.Type) && userIds.length > 0) throw assertionMembersError(body.Type);
  const row: GroupRow = {
    id: uuidv7(now),
    name: body.Name,
    description: body.Description,
    type: body.Type,
    createdAt: now,
    updatedAt: now,
  };
  await writeGroup(ctx, async (trx) => {
    await checkAclIds(trx, aclIds);
    await checkLocalMembers(trx, userIds);
    await insertGroupRow(trx, row);
    await replaceGroupAcls(trx, row.id, aclIds);
    await replaceGroupUsers(trx, row.id, userIds);
    await recordAudit(trx, now, AuditActions.GroupCreated, { ...actor, Description: row.name });
  });
  return getGroup(ctx, row.id);
}

/**
 * Updates name, description, ACLs and (local groups) members; the lists replace the current ones.
 * The type is fixed at creation. SAML and dynamic groups keep the members their assertions gave
 * them: their UserIDs may be sent back unchanged (or empty), never changed.
 */
export async function updateGroup(
  ctx: AppContext,
  actor: AuditActor,
  id: string,
  body: GroupUpdateBody,
): Promise<GroupRecord> {
  if (body.ID !== id) throw new BadRequestError({ code: ErrorCodes.mismatchingIds, extra: 'ID' });
  const now = ctx.clock.now();
  const aclIds = unique(body.ACLIDs);
  const userIds = unique(body.UserIDs);
  let lostEntries: AgentEntryKey[] = [];
  await writeGroup(ctx, async (trx) => {
    const current = await readGroup(trx, id);
    if (current === null) throw new NotFoundError({ extra: 'group' });
    if (current.Type !== body.Type) throw new BadRequestError({ code: ErrorCodes.groupTypeFixed, extra: 'Type' });
    const assertionMembers = ASSERTION_MEMBERSHIP.includes(current.Type);
    if (assertionMembers && userIds.length > 0 && !sameSet(userIds, current.UserIDs)) {
      throw assertionMembersError(current.Type);
    }
    await checkAclIds(trx, aclIds);
    if (!assertionMembers) await checkLocalMembers(trx, userIds);
    await updateGroupRow(trx, id, { name: body.Name, description: body.Description, updatedAt: now });
    await replaceGroupAcls(trx, id, aclIds);
    if (!assertionMembers) await replaceGroupUsers(trx, id, userIds);
    await recordAudit(trx, now, AuditActions.GroupUpdated, { ...actor, Description: body.Name });
    // Members who left, and members of a group that lost knocs, lose those grants now.
    lostEntries = await endGrantsWithoutAccess(trx, [...current.UserIDs, ...userIds], now);
  });
  ctx.agentSync.entriesChanged(lostEntries);
  return getGroup(ctx, id);
}

/** Deletes a group and its memberships (not the users or knocs), or 404. */
export async function deleteGroup(ctx: AppContext, actor: AuditActor, id: string): Promise<void> {
  const now = ctx.clock.now();
  const lostEntries = await ctx.db.transaction().execute(async (trx) => {
    const current = await readGroup(trx, id);
    if (current === null || !(await deleteGroupRow(trx, id))) throw new NotFoundError({ extra: 'group' });
    await recordAudit(trx, now, AuditActions.GroupDeleted, { ...actor, Description: current.Name });
    return endGrantsWithoutAccess(trx, current.UserIDs, now);
  });
  ctx.agentSync.entriesChanged(lostEntries);
}

/** Ids of every group the user belongs to (any type). */
export async function groupIdsOfUser(db: Kysely<Database>, userId: string): Promise<string[]> {
  return (await groupsOfUser(db, userId)).map((group) => group.id);
}

/** ACL ids the user holds directly (user_acls) or through any of their groups, without repeats. */
export async function aclIdsGrantedToUser(db: Kysely<Database>, userId: string): Promise<string[]> {
  return aclIdsOfUser(db, userId);
}

/**
 * For a SAML user at sign-in: makes the user a member of exactly the saml and dynamic groups the
 * assertion names, creating unknown names as dynamic groups (audited) so admins can attach ACLs to
 * them. Local groups are never touched, even when the assertion names one. Run it in the sign-in's
 * transaction; safe when replicas sign the same people in at once. Returns the ids of the saml and
 * dynamic groups the user is now in.
 */
export async function syncSamlGroupsOfUser(
  trx: Kysely<Database>,
  userId: string,
  groupNames: readonly string[],
  now: number,
): Promise<string[]> {
  const names = unique(groupNames.map((name) => name.trim()).filter((name) => name !== ''));
  const known = new Set((await findGroupRowsByName(trx, names)).map((group) => group.name));
  for (const name of names.filter((candidate) => !known.has(candidate))) {
    const row: GroupRow = { id: uuidv7(now), name, description: '', type: 'dynamic', createdAt: now, updatedAt: now };
    if (await insertGroupRowIfAbsent(trx, row)) {
      await recordAudit(trx, now, AuditActions.GroupCreated, { Description: name });
    }
  }
  const wanted = (await findGroupRowsByName(trx, names))
    .filter((group) => ASSERTION_MEMBERSHIP.includes(group.type))
    .map((group) => group.id);
  const wantedSet = new Set(wanted);
  const stale = (await groupsOfUser(trx, userId))
    .filter((group) => ASSERTION_MEMBERSHIP.includes(group.type) && !wantedSet.has(group.id))
    .map((group) => group.id);
  await removeUserFromGroups(trx, userId, stale);
  await addUserToGroups(trx, userId, wanted);
  return wanted.sort();
}

async function readGroup(db: Kysely<Database>, id: string): Promise<GroupRecord | null> {
  const row = await findGroupRow(db, id);
  if (row === null) return null;
  const memberships = await membershipsOf(db, [id]);
  return toRecord(row, memberships.get(id));
}

/** Runs a group write in a transaction and turns store-level refusals into the API's errors. */
async function writeGroup(ctx: AppContext, write: (trx: Kysely<Database>) => Promise<void>): Promise<void> {
  try {
    await ctx.db.transaction().execute(write);
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError({ code: ErrorCodes.groupNameExists, extra: 'Name' });
    // A knoc or user deleted between our check and the insert: the same answer as an unknown id.
    if (isForeignKeyViolation(error)) throw new BadRequestError({ extra: 'ACLIDs, UserIDs: unknown id' });
    throw error;
  }
}

async function checkAclIds(db: Kysely<Database>, aclIds: readonly string[]): Promise<void> {
  const found = await existingKnocIds(db, aclIds);
  const missing = aclIds.filter((id) => !found.has(id));
  if (missing.length > 0) throw new BadRequestError({ extra: `ACLIDs: unknown ${nameIds(missing)}` });
}

/** Members of a local group must exist and must not be SAML users (their groups come from the IdP). */
async function checkLocalMembers(db: Kysely<Database>, userIds: readonly string[]): Promise<void> {
  const authTypes = await authTypesOfUsers(db, userIds);
  const missing = userIds.filter((id) => !authTypes.has(id));
  if (missing.length > 0) throw new BadRequestError({ extra: `UserIDs: unknown ${nameIds(missing)}` });
  const saml = userIds.filter((id) => authTypes.get(id) === 'SAML');
  if (saml.length > 0) {
    throw new BadRequestError({ extra: `UserIDs: SAML users cannot be members of local groups (${nameIds(saml)})` });
  }
}

function assertionMembersError(type: GroupType): BadRequestError {
  return new BadRequestError({ extra: `UserIDs: members of ${type} groups come from SAML assertions` });
}

function toRecord(row: GroupRow, memberships: { aclIds: string[]; userIds: string[] } | undefined): GroupRecord {
  return {
    ID: row.id,
    Name: row.name,
    Description: row.description,
    Type: row.type,
    ACLIDs: memberships?.aclIds ?? [],
    UserIDs: memberships?.userIds ?? [],
  };
}

function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const setB = new Set(b);
  return a.length === setB.size && a.every((value) => setB.has(value));
}

function nameIds(ids: readonly string[]): string {
  const named = ids.slice(0, IDS_NAMED_IN_ERRORS).join(', ');
  return ids.length > IDS_NAMED_IN_ERRORS ? `${named} and ${ids.length - IDS_NAMED_IN_ERRORS} more` : named;
}

function isForeignKeyViolation(error: unknown): boolean {
  if (!(error instanceof Error) || !('code' in error)) return false;
  return error.code === '23503' || error.code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}
