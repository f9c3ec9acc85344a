import type { Kysely } from 'kysely';
import type { Database, SessionStage } from '../store/schema.js';
import { bool } from '../lib/rows.js';
import type { SessionRealm } from './cookies.js';

/** Why a session stopped before (or at) its end. Kept for the audit trail and the session lists. */
export type SessionEndReason = 'logout' | 'invalidated' | 'expired' | 'superseded' | 'account-changed';

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
}

export async function insertUserSession(
  db: Kysely<Database>,
  session: NewSessionFields & { userId: string; kiosk: boolean; stage?: SessionStage },
): Promise<void> {
  await db
    .insertInto('userSessions')
    .values({ ...session, endedAt: null, endReason: null })
    .execute();
}

export async function insertAdminSession(
  db: Kysely<Database>,
  session: NewSessionFields & { adminId: string; stage?: SessionStage },
): Promise<void> {
  await db
    .insertInto('adminSessions')
    .values({ ...session, endedAt: null, endReason: null })
    .execute();
}

/** The running session with this token hash, or null when there is none or it has ended. */
export async function findActiveUserSession(
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

export async function findActiveAdminSession(
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

/** The sessions table of each realm and the column naming whose session a row is. */
const SESSION_TABLES = {
  user: { table: 'userSessions', principal: 'userId' },
  admin: { table: 'adminSessions', principal: 'adminId' },
} as const;

/** Ends a running session of either realm; true when it was running. */
export async function endSession(
  db: Kysely<Database>,
  realm: SessionRealm,
  id: string,
  reason: SessionEndReason,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable(SESSION_TABLES[realm].table)
    .set({ endedAt: now, endReason: reason })
    .where('id', '=', id)
    .where('endedAt', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Ends every running session of one account (after a password reset, say); returns how many. */
export async function endAllSessionsOf(
  db: Kysely<Database>,
  realm: SessionRealm,
  principalId: string,
  reason: SessionEndReason,
  now: number,
): Promise<number> {
  const { table, principal } = SESSION_TABLES[realm];
  const result = await db
    .updateTable(table)
    .set({ endedAt: now, endReason: reason })
    .where(principal, '=', principalId)
    .where('endedAt', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** User sessions that are running now. */
export async function countActiveUserSessions(db: Kysely<Database>, now: number): Promise<number> {
  const row = await db
    .selectFrom('userSessions')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('endedAt', 'is', null)
    .where('endsAt', '>', now)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}
