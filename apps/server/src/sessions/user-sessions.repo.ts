import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { bool } from '../lib/rows.js';

/** A fully signed-in user session running now, with who it belongs to. */
export interface RunningSessionRow {
  id: string;
  userName: string;
  name: string;
  ipAddress: string;
  createdAt: number;
  endsAt: number;
  kiosk: boolean;
}

/** A running grant of a running session, with its knoc's description. */
export interface RunningGrantRow {
  sessionId: string;
  aclId: string;
  description: string;
  ip: string;
  expiresAt: number;
}

/** Sessions not ended, not past their end and past every sign-in step, oldest first. */
export async function runningUserSessions(db: Kysely<Database>, now: number): Promise<RunningSessionRow[]> {
  const rows = await db
    .selectFrom('userSessions')
    .innerJoin('users', 'users.id', 'userSessions.userId')
    .select([
      'userSessions.id',
      'users.userName',
      'users.name',
      'userSessions.ipAddress',
      'userSessions.createdAt',
      'userSessions.endsAt',
      'userSessions.kiosk',
    ])
    .where('userSessions.endedAt', 'is', null)
    .where('userSessions.endsAt', '>', now)
    .where('userSessions.stage', '=', 'active')
    .orderBy('userSessions.createdAt')
    .orderBy('userSessions.id')
    .execute();
  return rows.map((row) => ({ ...row, kiosk: bool(row.kiosk) }));
}

/**
 * The running grants (not ended, not expired) of the same sessions, in one query rather than one per
 * session, ordered by knoc description and address.
 */
export async function runningSessionGrants(db: Kysely<Database>, now: number): Promise<RunningGrantRow[]> {
  const rows = await db
    .selectFrom('grants')
    .innerJoin('userSessions', 'userSessions.id', 'grants.sessionId')
    .innerJoin('knocs', 'knocs.id', 'grants.aclId')
    .select(['grants.sessionId', 'grants.aclId', 'knocs.description', 'grants.ip', 'grants.expiresAt'])
    .where('grants.endedAt', 'is', null)
    .where('grants.expiresAt', '>', now)
    .where('userSessions.endedAt', 'is', null)
    .where('userSessions.endsAt', '>', now)
    .where('userSessions.stage', '=', 'active')
    .orderBy('knocs.description')
    .orderBy('grants.ip')
    .execute();
  // The inner join on the session makes sessionId non-null.
  return rows.map((row) => ({ ...row, sessionId: row.sessionId ?? '' }));
}
