import type { Kysely } from 'kysely';
import { GrantStatus } from '@postern/protocol';
import type { Database, GrantOrigin, GrantsTable } from '../store/schema.js';
import { preparedQuery } from '../store/prepared-query.js';
import type { AgentEntryKey } from './agent-sync.js';

/** Why a grant ended, for the record and the audit log. */
export type GrantEndReason =
  'revoked' | 'expired' | 'session-ended' | 'ip-changed' | 'knoc-deleted' | 'access-removed' | 'admin';

/** A running grant: not ended and not past its expiry. */
export interface ActiveGrantFilter {
  aclIds?: readonly string[];
  sessionIds?: readonly string[];
  userIds?: readonly string[];
  grantIds?: readonly string[];
  /** Grants whose expiry has passed at this instant (the sweeper). */
  expiredBy?: number;
}

const CHUNK = 500;

function chunks<T>(values: readonly T[]): T[][] {
  const result: T[][] = [];
  for (let i = 0; i < values.length; i += CHUNK) result.push(values.slice(i, i + CHUNK));
  return result;
}

/**
 * Ends the grants the filter selects and returns the device entries they touched. A grant whose
 * address stays held by another running grant on the same knoc (a shared office address) is
 * Revoked at once: the device does not change. Otherwise it is Revoking until the agent confirms
 * the removal; allowlists are published by the server itself, so theirs are Revoked at once too.
 */
export async function endGrants(
  db: Kysely<Database>,
  filter: ActiveGrantFilter,
  now: number,
  reason: GrantEndReason,
): Promise<AgentEntryKey[]> {
  const lists = [filter.aclIds, filter.sessionIds, filter.userIds, filter.grantIds];
  if (lists.some((list) => list !== undefined && list.length === 0)) return [];
  let query = db
    .selectFrom('grants')
    .innerJoin('knocs', 'knocs.id', 'grants.aclId')
    .leftJoin('backends', 'backends.id', 'knocs.backendId')
    .select(['grants.id', 'grants.aclId', 'grants.ip', 'backends.agentId', 'backends.type'])
    .where('grants.endedAt', 'is', null);
  if (filter.expiredBy !== undefined) query = query.where('grants.expiresAt', '<=', filter.expiredBy);
  else query = query.where('grants.expiresAt', '>', now);
  if (filter.aclIds !== undefined) query = query.where('grants.aclId', 'in', filter.aclIds);
  if (filter.sessionIds !== undefined) query = query.where('grants.sessionId', 'in', filter.sessionIds);
  if (filter.userIds !== undefined) query = query.where('grants.userId', 'in', filter.userIds);
  if (filter.grantIds !== undefined) query = query.where('grants.id', 'in', filter.grantIds);
  const ending = await query.execute();
  if (ending.length === 0) return [];

  for (const batch of chunks(ending.map((row) => row.id))) {
    await db
      .updateTable('grants')
      .set({ endedAt: now, endReason: reason, updatedAt: now, status: GrantStatus.Revoking })
      .where('id', 'in', batch)
      .execute();
  }

  const keys = new Map<string, AgentEntryKey & { type: string | null }>();
  for (const row of ending) {
    keys.set(`${row.aclId} ${row.ip}`, { agentId: row.agentId ?? '', aclId: row.aclId, ip: row.ip, type: row.type });
  }
  const stillHeld = await heldEntries(db, [...keys.values()], now);
  const settledNow = ending.filter((row) => row.type === 'allowlist' || stillHeld.has(`${row.aclId} ${row.ip}`));
  for (const batch of chunks(settledNow.map((row) => row.id))) {
    await db.updateTable('grants').set({ status: GrantStatus.Revoked }).where('id', 'in', batch).execute();
  }
  return [...keys.values()]
    .filter((key) => key.agentId !== '' && !stillHeld.has(`${key.aclId} ${key.ip}`))
    .map(({ agentId, aclId, ip }) => ({ agentId, aclId, ip }));
}

/**
 * A grant as it starts: the row without what only its end fills in (updatedAt starts as createdAt),
 * nor the knoc test's read-back (a test sets `verify` on the grant it made).
 */
export type NewGrant = Omit<
  GrantsTable,
  'error' | 'updatedAt' | 'endedAt' | 'endReason' | 'verify' | 'readBack' | 'readBackDetail'
>;

// Prepared: both run on every grant, ahead of the message that opens the firewall.
const insertGrantRow = preparedQuery(
  (
    db,
    id: string,
    aclId: string,
    sessionId: string | null,
    userId: string | null,
    userName: string,
    ip: string,
    origin: string,
    status: number,
    createdAt: number,
    expiresAt: number,
  ) =>
    db.insertInto('grants').values({
      id,
      aclId,
      sessionId,
      userId,
      userName,
      ip,
      origin: origin as GrantOrigin,
      status,
      createdAt,
      updatedAt: createdAt,
      expiresAt,
    }),
);

const runningAddressesOfSession = preparedQuery((db, sessionId: string, aclId: string, now: number) =>
  db
    .selectFrom('grants')
    .select('ip')
    .where('sessionId', '=', sessionId)
    .where('aclId', '=', aclId)
    .where('endedAt', 'is', null)
    .where('expiresAt', '>', now),
);

export async function insertGrant(db: Kysely<Database>, grant: NewGrant): Promise<void> {
  await insertGrantRow(
    db,
    grant.id,
    grant.aclId,
    grant.sessionId,
    grant.userId,
    grant.userName,
    grant.ip,
    grant.origin,
    grant.status,
    grant.createdAt,
    grant.expiresAt,
  );
}

/** The addresses a session's running grants on a knoc hold. */
export async function addressesHeldBySession(
  db: Kysely<Database>,
  sessionId: string,
  aclId: string,
  now: number,
): Promise<Set<string>> {
  return new Set((await runningAddressesOfSession(db, sessionId, aclId, now)).map((row) => row.ip));
}

/** Which of these entries some running grant still holds, as "aclId ip" strings. */
async function heldEntries(
  db: Kysely<Database>,
  keys: readonly { aclId: string; ip: string }[],
  now: number,
): Promise<Set<string>> {
  const held = new Set<string>();
  const byAcl = new Map<string, string[]>();
  for (const key of keys) byAcl.set(key.aclId, [...(byAcl.get(key.aclId) ?? []), key.ip]);
  for (const [aclId, ips] of byAcl) {
    for (const batch of chunks(ips)) {
      const rows = await db
        .selectFrom('grants')
        .select('ip')
        .distinct()
        .where('aclId', '=', aclId)
        .where('ip', 'in', batch)
        .where('endedAt', 'is', null)
        .where('expiresAt', '>', now)
        .execute();
      for (const row of rows) held.add(`${aclId} ${row.ip}`);
    }
  }
  return held;
}

// Prepared: a user's revoke runs these ahead of the message that closes the firewall.
const endRunningGrantsOfSessionOnKnoc = preparedQuery(
  (db, sessionId: string, aclId: string, now: number, reason: string, status: number) =>
    db
      .updateTable('grants')
      .set({ endedAt: now, endReason: reason as GrantEndReason, updatedAt: now, status })
      .where('sessionId', '=', sessionId)
      .where('aclId', '=', aclId)
      .where('endedAt', 'is', null)
      .where('expiresAt', '>', now)
      .returning(['id', 'ip']),
);

const runningGrantOnEntry = preparedQuery((db, aclId: string, ip: string, now: number) =>
  db
    .selectFrom('grants')
    .select('id')
    .where('aclId', '=', aclId)
    .where('ip', '=', ip)
    .where('endedAt', 'is', null)
    .where('expiresAt', '>', now)
    .limit(1),
);

const markGrantRevoked = preparedQuery((db, id: string, status: number) =>
  db.updateTable('grants').set({ status }).where('id', '=', id),
);

/** A knoc as {@link endSessionGrantsOnKnocs} needs it: its backend's agent and type. */
export interface EndingKnoc {
  id: string;
  agentId: string | null;
  backendType: string | null;
}

/**
 * endGrants for one session on these knocs (a user's revoke), with the same outcome: each knoc's
 * running grants of the session are ended in one prepared UPDATE … RETURNING, and an entry another
 * running grant still holds, or an allowlist's, is Revoked at once. Built for the revoke's latency:
 * endGrants builds and compiles three queries afresh on every call. Returns the device entries to
 * tell agents about and every address whose grant ended (for the audit entry).
 */
export async function endSessionGrantsOnKnocs(
  db: Kysely<Database>,
  sessionId: string,
  knocs: readonly EndingKnoc[],
  now: number,
  reason: GrantEndReason,
): Promise<{ keys: AgentEntryKey[]; addresses: string[] }> {
  const keys = new Map<string, AgentEntryKey>();
  const addresses = new Set<string>();
  for (const knoc of knocs) {
    const ended = await endRunningGrantsOfSessionOnKnoc(db, sessionId, knoc.id, now, reason, GrantStatus.Revoking);
    // Asked after the knoc's UPDATE: the session's own grants no longer count as holding an entry.
    const heldByIp = new Map<string, boolean>();
    for (const row of ended) {
      addresses.add(row.ip);
      let held = heldByIp.get(row.ip);
      if (held === undefined) {
        held = (await runningGrantOnEntry(db, knoc.id, row.ip, now)).length > 0;
        heldByIp.set(row.ip, held);
      }
      if (held || knoc.backendType === 'allowlist') await markGrantRevoked(db, row.id, GrantStatus.Revoked);
      if (!held && knoc.agentId !== null)
        keys.set(`${knoc.id} ${row.ip}`, { agentId: knoc.agentId, aclId: knoc.id, ip: row.ip });
    }
  }
  return { keys: [...keys.values()], addresses: [...addresses] };
}

/** Ends the grants of these knocs (knoc or backend deleted). */
export function endGrantsForKnocs(
  db: Kysely<Database>,
  aclIds: readonly string[],
  now: number,
  reason: GrantEndReason = 'knoc-deleted',
): Promise<AgentEntryKey[]> {
  return endGrants(db, { aclIds }, now, reason);
}

/** Ends these users' grants on these knocs (they lost access to them). */
export function endGrantsForUsersOnKnocs(
  db: Kysely<Database>,
  aclIds: readonly string[],
  userIds: readonly string[],
  now: number,
  reason: GrantEndReason = 'access-removed',
): Promise<AgentEntryKey[]> {
  return endGrants(db, { aclIds, userIds }, now, reason);
}

/** Ends the grants of sessions that ended (logout, expiry, invalidation, account change). */
export function endGrantsForSessions(
  db: Kysely<Database>,
  sessionIds: readonly string[],
  now: number,
): Promise<AgentEntryKey[]> {
  return endGrants(db, { sessionIds }, now, 'session-ended');
}

/** The device entries these sessions' grants were on, running or not (to tell agents after commit). */
export async function entriesOfSessions(db: Kysely<Database>, sessionIds: readonly string[]): Promise<AgentEntryKey[]> {
  if (sessionIds.length === 0) return [];
  const keys: AgentEntryKey[] = [];
  for (const batch of chunks(sessionIds)) {
    const rows = await db
      .selectFrom('grants')
      .innerJoin('knocs', 'knocs.id', 'grants.aclId')
      .innerJoin('backends', 'backends.id', 'knocs.backendId')
      .select(['backends.agentId', 'grants.aclId', 'grants.ip'])
      .distinct()
      .where('grants.sessionId', 'in', batch)
      .where('backends.agentId', 'is not', null)
      .execute();
    for (const row of rows) if (row.agentId !== null) keys.push({ agentId: row.agentId, aclId: row.aclId, ip: row.ip });
  }
  return keys;
}

/** How long an ended grant still shapes the status (Revoking, Revoked, error on revoke). */
const ENDED_GRANT_SHOWN_MS = 60 * 60_000;

/** Ended this long ago or less, a grant still shapes the status (see aclEntry); older, it says nothing. */
function recentlyEnded(now: number) {
  return now - ENDED_GRANT_SHOWN_MS;
}

const STATUS_COLUMNS = ['aclId', 'status', 'error', 'expiresAt', 'endedAt', 'createdAt'] as const;

/**
 * The session's grants on these knocs that shape their ACL entries: running ones and those ended
 * within ENDED_GRANT_SHOWN_MS. Long-ended grants say nothing a Created status would not (Revoked and
 * Created both mean "ready to grant"); leaving them out keeps a long session's status call small.
 */
export function grantsShapingStatus(db: Kysely<Database>, sessionId: string, aclIds: readonly string[], now: number) {
  return db
    .selectFrom('grants')
    .select(STATUS_COLUMNS)
    .where('sessionId', '=', sessionId)
    .where('aclId', 'in', aclIds)
    .where((eb) => eb.or([eb('endedAt', 'is', null), eb('endedAt', '>', recentlyEnded(now))]))
    .execute();
}

/**
 * What aclEntry needs for one knoc after a grant or revoke: the grants not ended and the last one
 * ended (it decides Revoking, Revoked or error on revoke) — the same entry grantsShapingStatus gives,
 * read through the (session, knoc, ended) index however often the session has granted and revoked.
 */
export async function grantsShapingEntry(db: Kysely<Database>, sessionId: string, aclId: string, now: number) {
  const open = await openGrantsOfSessionKnoc(db, sessionId, aclId);
  const lastEnded = await lastEndedGrantOfSessionKnoc(db, sessionId, aclId, recentlyEnded(now));
  return [...open, ...lastEnded];
}

// Prepared: both run on every grant and revoke, before its answer (kysely's build costs more than SQLite's work).
const grantsOfSessionKnoc = (db: Kysely<Database>, sessionId: string, aclId: string) =>
  db.selectFrom('grants').select(STATUS_COLUMNS).where('sessionId', '=', sessionId).where('aclId', '=', aclId);
const openGrantsOfSessionKnoc = preparedQuery((db, sessionId: string, aclId: string) =>
  grantsOfSessionKnoc(db, sessionId, aclId).where('endedAt', 'is', null),
);
const lastEndedGrantOfSessionKnoc = preparedQuery((db, sessionId: string, aclId: string, endedAfter: number) =>
  grantsOfSessionKnoc(db, sessionId, aclId).where('endedAt', '>', endedAfter).orderBy('endedAt', 'desc').limit(1),
);

/**
 * The session's running grants of origin 'user' (those made for the address the user came from),
 * optionally only those not on `except` (the address the user comes from now).
 */
export function runningUserGrants(db: Kysely<Database>, sessionId: string, now: number, except?: string) {
  let query = db
    .selectFrom('grants')
    .select(['id', 'aclId', 'ip', 'expiresAt'])
    .where('sessionId', '=', sessionId)
    .where('origin', '=', 'user')
    .where('endedAt', 'is', null)
    .where('expiresAt', '>', now);
  if (except !== undefined) query = query.where('ip', '!=', except);
  return query.execute();
}

/** Which of these knocs the session has ever had a grant on, running or ended. */
export async function knocsGrantedInSession(
  db: Kysely<Database>,
  sessionId: string,
  aclIds: readonly string[],
): Promise<Set<string>> {
  const rows = await db
    .selectFrom('grants')
    .select('aclId')
    .distinct()
    .where('sessionId', '=', sessionId)
    .where('aclId', 'in', aclIds)
    .execute();
  return new Set(rows.map((row) => row.aclId));
}

/** The addresses the browser discovered in this session and the server logged (see logIps). */
export async function loggedSessionAddresses(db: Kysely<Database>, sessionId: string): Promise<string[]> {
  const rows = await db.selectFrom('sessionIps').select('ip').where('sessionId', '=', sessionId).execute();
  return rows.map((row) => row.ip);
}

/** Logs one discovered address for the session. */
export async function insertSessionAddress(
  db: Kysely<Database>,
  address: { sessionId: string; ip: string; port: number; createdAt: number },
): Promise<void> {
  await db.insertInto('sessionIps').values(address).execute();
}

/** A break-glass grant (origin 'admin') on this knoc, ended or not. */
export function adminGrant(db: Kysely<Database>, grantId: string, aclId: string) {
  return db
    .selectFrom('grants')
    .select(['id', 'ip', 'createdAt'])
    .where('id', '=', grantId)
    .where('aclId', '=', aclId)
    .where('origin', '=', 'admin')
    .executeTakeFirst();
}

/**
 * The break-glass grants on a knoc's passive+ children made with the knoc's own: the same address
 * in the same moment.
 */
export async function twinAdminGrantIds(
  db: Kysely<Database>,
  parentId: string,
  twin: { ip: string; createdAt: number },
): Promise<string[]> {
  const rows = await db
    .selectFrom('grants')
    .innerJoin('knocs', 'knocs.id', 'grants.aclId')
    .select('grants.id')
    .where('knocs.parentId', '=', parentId)
    .where('grants.origin', '=', 'admin')
    .where('grants.ip', '=', twin.ip)
    .where('grants.createdAt', '=', twin.createdAt)
    .execute();
  return rows.map((row) => row.id);
}
