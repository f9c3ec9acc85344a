import type { Kysely } from 'kysely';
import { endGrantsForSessions } from '../grants/grants.repo.js';
import type { Database, SessionStage } from '../store/schema.js';
import { bool } from '../lib/rows.js';
import { toUser, type User } from '../users/users.repo.js';
import { preparedQuery } from '../store/prepared-query.js';
import type { EndedUserSession, SessionEndReason } from './session-events.js';

export interface UserSession {
  id: string;
  userId: string;
  createdAt: number;
  endsAt: number;
  ipAddress: string;
  kiosk: boolean;
  /** 'active', or waiting for a second factor; only active sessions open the API. */
  stage: SessionStage;
}

export interface AdminSession {
  id: string;
  adminId: string;
  createdAt: number;
  endsAt: number;
  ipAddress: string;
  stage: SessionStage;
}

export interface NewSessionFields {
  id: string;
  tokenHash: string;
  createdAt: number;
  endsAt: number;
  ipAddress: string;
  userAgent: string;
  stage: SessionStage;
}

export async function insertUserSession(
  db: Kysely<Database>,
  session: NewSessionFields & { userId: string; kiosk: boolean },
): Promise<void> {
  await db
    .insertInto('userSessions')
    .values({ ...session, endedAt: null, endReason: null })
    .execute();
}

export async function insertAdminSession(
  db: Kysely<Database>,
  session: NewSessionFields & { adminId: string },
): Promise<void> {
  await db
    .insertInto('adminSessions')
    .values({ ...session, endedAt: null, endReason: null })
    .execute();
}

/** The running session (any stage) with this token hash, or null when there is none or it has ended. */
export async function findRunningUserSession(
  db: Kysely<Database>,
  tokenHash: string,
  now: number,
): Promise<UserSession | null> {
  const row = await db
    .selectFrom('userSessions')
    .select(['id', 'userId', 'createdAt', 'endsAt', 'ipAddress', 'kiosk', 'stage'])
    .where('tokenHash', '=', tokenHash)
    .where('endedAt', 'is', null)
    .where('endsAt', '>', now)
    .executeTakeFirst();
  return row === undefined ? null : { ...row, kiosk: bool(row.kiosk) };
}

/** The running session for a token hash, with its user (see findRunningUserSessionWithUser). */
const runningUserSessionWithUser = preparedQuery((db, tokenHash: string, now: number) =>
  db
    .selectFrom('userSessions')
    .innerJoin('users', 'users.id', 'userSessions.userId')
    .selectAll('users')
    .select([
      'userSessions.id as sessionId',
      'userSessions.createdAt as sessionCreatedAt',
      'userSessions.endsAt as sessionEndsAt',
      'userSessions.ipAddress as sessionIpAddress',
      'userSessions.kiosk as sessionKiosk',
      'userSessions.stage as sessionStage',
    ])
    .where('userSessions.tokenHash', '=', tokenHash)
    .where('userSessions.endedAt', 'is', null)
    .where('userSessions.endsAt', '>', now),
);

/**
 * The running session for a token hash with its user, in one prepared query: every user API call
 * asks. Null when there is no such session (its user gone with it).
 */
export async function findRunningUserSessionWithUser(
  db: Kysely<Database>,
  tokenHash: string,
  now: number,
): Promise<{ session: UserSession; user: User } | null> {
  const [row] = await runningUserSessionWithUser(db, tokenHash, now);
  if (row === undefined) return null;
  const { sessionId, sessionCreatedAt, sessionEndsAt, sessionIpAddress, sessionKiosk, sessionStage, ...user } = row;
  return {
    session: {
      id: sessionId,
      userId: user.id,
      createdAt: sessionCreatedAt,
      endsAt: sessionEndsAt,
      ipAddress: sessionIpAddress,
      kiosk: bool(sessionKiosk),
      stage: sessionStage,
    },
    user: toUser(user),
  };
}

export async function findRunningAdminSession(
  db: Kysely<Database>,
  tokenHash: string,
  now: number,
): Promise<AdminSession | null> {
  const row = await db
    .selectFrom('adminSessions')
    .select(['id', 'adminId', 'createdAt', 'endsAt', 'ipAddress', 'stage'])
    .where('tokenHash', '=', tokenHash)
    .where('endedAt', 'is', null)
    .where('endsAt', '>', now)
    .executeTakeFirst();
  return row ?? null;
}

/** Which running user sessions to end. */
export type UserSessionSelection =
  | { sessionId: string }
  | { userId: string; exceptSessionId?: string }
  | { all: true }
  /** Sessions whose end has passed but that nobody has closed yet (the sweeper's work). */
  | { expiredAt: number };

/**
 * Ends running user sessions and returns them, so the caller can announce them (after commit) to
 * the session-ended listeners. A session already ended is never ended (or announced) twice.
 */
export async function endUserSessions(
  db: Kysely<Database>,
  selection: UserSessionSelection,
  reason: SessionEndReason,
  now: number,
): Promise<EndedUserSession[]> {
  let query = db.updateTable('userSessions').where('endedAt', 'is', null);
  if ('sessionId' in selection) query = query.where('id', '=', selection.sessionId);
  if ('userId' in selection) {
    query = query.where('userId', '=', selection.userId);
    if (selection.exceptSessionId !== undefined) query = query.where('id', '!=', selection.exceptSessionId);
  }
  // An expired session ended at its end time, not when the sweeper noticed.
  if ('expiredAt' in selection) query = query.where('endsAt', '<=', selection.expiredAt);
  const rows = await query
    .set((eb) => ({ endedAt: 'expiredAt' in selection ? eb.ref('endsAt') : eb.val(now), endReason: reason }))
    .returning(['id', 'userId'])
    .execute();
  // A session's grants end with it, in the same transaction: no moment exists in which a grant
  // outlives its session in the store. Agents hear of it after commit (forwardEndedSessionsToAgents, grants/grant-sweeper.ts).
  await endGrantsForSessions(
    db,
    rows.map((row) => row.id),
    now,
  );
  return rows.map((row) => ({ sessionId: row.id, userId: row.userId, reason }));
}

/** Which running admin sessions to end. */
export type AdminSessionSelection =
  { sessionId: string } | { adminId: string; exceptSessionId?: string } | { allExcept: string } | { expiredAt: number };

/** Ends running admin sessions; returns how many. */
export async function endAdminSessions(
  db: Kysely<Database>,
  selection: AdminSessionSelection,
  reason: SessionEndReason,
  now: number,
): Promise<number> {
  let query = db.updateTable('adminSessions').where('endedAt', 'is', null);
  if ('sessionId' in selection) query = query.where('id', '=', selection.sessionId);
  if ('adminId' in selection) {
    query = query.where('adminId', '=', selection.adminId);
    if (selection.exceptSessionId !== undefined) query = query.where('id', '!=', selection.exceptSessionId);
  }
  if ('allExcept' in selection) query = query.where('id', '!=', selection.allExcept);
  if ('expiredAt' in selection) query = query.where('endsAt', '<=', selection.expiredAt);
  const result = await query
    .set((eb) => ({ endedAt: 'expiredAt' in selection ? eb.ref('endsAt') : eb.val(now), endReason: reason }))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Fully signed-in user sessions running now (pending second factors are not sessions yet). */
export async function countActiveUserSessions(db: Kysely<Database>, now: number): Promise<number> {
  const row = await db
    .selectFrom('userSessions')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('endedAt', 'is', null)
    .where('endsAt', '>', now)
    .where('stage', '=', 'active')
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/** One user's fully signed-in sessions running now, oldest first. */
export async function activeSessionsOfUser(db: Kysely<Database>, userId: string, now: number): Promise<UserSession[]> {
  const rows = await db
    .selectFrom('userSessions')
    .select(['id', 'userId', 'createdAt', 'endsAt', 'ipAddress', 'kiosk', 'stage'])
    .where('userId', '=', userId)
    .where('endedAt', 'is', null)
    .where('endsAt', '>', now)
    .where('stage', '=', 'active')
    .orderBy('createdAt')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ ...row, kiosk: bool(row.kiosk) }));
}

/** One admin's fully signed-in sessions running now, oldest first. */
export async function activeSessionsOfAdmin(
  db: Kysely<Database>,
  adminId: string,
  now: number,
): Promise<AdminSession[]> {
  return db
    .selectFrom('adminSessions')
    .select(['id', 'adminId', 'createdAt', 'endsAt', 'ipAddress', 'stage'])
    .where('adminId', '=', adminId)
    .where('endedAt', 'is', null)
    .where('endsAt', '>', now)
    .where('stage', '=', 'active')
    .orderBy('createdAt')
    .orderBy('id')
    .execute();
}

/** Ids of users with at least one fully signed-in session now. */
export async function usersWithActiveSessions(db: Kysely<Database>, now: number): Promise<Set<string>> {
  const rows = await db
    .selectFrom('userSessions')
    .select('userId')
    .distinct()
    .where('endedAt', 'is', null)
    .where('endsAt', '>', now)
    .where('stage', '=', 'active')
    .execute();
  return new Set(rows.map((row) => row.userId));
}

/** Deletes session rows that ended long ago (the history the lists and audit no longer need). */
export async function purgeEndedSessions(db: Kysely<Database>, endedBefore: number): Promise<void> {
  await db.deleteFrom('userSessions').where('endedAt', '<', endedBefore).execute();
  await db.deleteFrom('adminSessions').where('endedAt', '<', endedBefore).execute();
}
