import { ADMIN_SESSION_MINUTES, AuditActions, USER_SESSION_MINUTES_MAX } from '@postern/protocol';
import type { Kysely } from 'kysely';
import type { AppContext, RequestMeta } from '../app-context.js';
import type { Database, SessionStage } from '../store/schema.js';
import type { User } from '../users/users.repo.js';
import type { Admin } from '../admins/admins.repo.js';
import { recordUserLogin } from '../users/users.repo.js';
import { recordAdminLogin } from '../admins/admins.repo.js';
import { recordAudit } from '../audit/audit.js';
import { readSettings } from '../settings/settings.js';
import { currentLicensing } from '../licence/licence.js';
import { uuidv7 } from '../lib/ids.js';
import { hashSessionToken, newSessionToken } from '../sessions/session-tokens.js';
import type { EndedUserSession } from '../sessions/session-events.js';
import {
  activeSessionsOfUser,
  endAdminSessions,
  endUserSessions,
  findRunningAdminSession,
  findRunningUserSession,
  insertAdminSession,
  insertUserSession,
} from '../sessions/sessions.repo.js';

const MINUTE_MS = 60_000;
/** How long a sign-in may wait for its second factor. */
export const PENDING_SECOND_FACTOR_MS = 5 * MINUTE_MS;

/** A session just started: the bearer token for the cookie (never stored) and when it ends. */
export interface IssuedSession {
  sessionId: string;
  token: string;
  endsAt: number;
}

/** What starting a user session changed, for the caller to announce after commit. */
export interface StartedUserSession extends IssuedSession {
  /** Sessions this sign-in ended: the one it replaced, and the oldest beyond the user's limit. */
  ended: EndedUserSession[];
}

interface StartArgs {
  meta: RequestMeta;
  now: number;
  /** The token of the session this sign-in replaces, from the request's cookie. */
  previousToken: string | undefined;
}

/**
 * Starts a fully signed-in user session inside `trx`: ends the session it replaces, keeps the user
 * within their session limit by ending their oldest sessions, records the sign-in and audits it.
 */
export async function startUserSession(
  trx: Kysely<Database>,
  args: StartArgs & {
    user: User;
    kiosk: boolean;
    sessionLimit: number | null;
    /** A shorter length asked for by the sign-in (a SAML sessionDuration), in minutes. */
    maxMinutes?: number | undefined;
    /** How the user signed in, when the audit entry should say (an API key's name). */
    signInDescription?: string | undefined;
  },
): Promise<StartedUserSession> {
  const { user, kiosk, now } = args;
  const settings = await readSettings(trx);
  const minutes = kiosk ? settings.KioskSessionDuration : user.durationMinutes;
  const endsAt = userSessionEndsAt(now, Math.min(minutes, args.maxMinutes ?? Infinity), user.validUntil);
  const ended = await endPreviousUserSession(trx, args.previousToken, now);
  const issued = await insertUser(trx, user, kiosk, endsAt, 'active', args);
  ended.push(...(await enforceSessionLimit(trx, user, args.sessionLimit, issued.sessionId, now)));
  await recordUserLogin(trx, user.id, now);
  await recordAudit(trx, now, AuditActions.UserLogin, {
    UserName: user.userName,
    IpAddress: args.meta.ipAddress,
    ...(args.signInDescription === undefined ? {} : { Description: args.signInDescription }),
  });
  return { ...issued, ended };
}

/**
 * When a user session started at `now` for `minutes` ends. Never beyond the longest session (a
 * Duration stored before it was bounded cannot reach a date nothing can write), never after the
 * account's ValidUntil.
 */
export function userSessionEndsAt(now: number, minutes: number, validUntil: number | null): number {
  const bounded = Math.max(0, Math.min(minutes, USER_SESSION_MINUTES_MAX));
  return Math.min(now + bounded * MINUTE_MS, validUntil ?? Number.POSITIVE_INFINITY);
}

/** Starts a user sign-in that waits (briefly) for its second factor; it opens nothing but the OTP API. */
export async function startPendingUserSession(
  trx: Kysely<Database>,
  args: StartArgs & { user: User; kiosk: boolean; stage: Exclude<SessionStage, 'active'> },
): Promise<StartedUserSession> {
  const ended = await endPreviousUserSession(trx, args.previousToken, args.now);
  const issued = await insertUser(trx, args.user, args.kiosk, args.now + PENDING_SECOND_FACTOR_MS, args.stage, args);
  return { ...issued, ended };
}

/** Starts a fully signed-in admin session (or a pending one when `stage` says so) inside `trx`. */
export async function startAdminSession(
  trx: Kysely<Database>,
  args: StartArgs & {
    admin: Admin;
    stage: SessionStage;
    /** How the admin signed in, when the audit entry should say (an OpenID Connect provider's name). */
    signInDescription?: string | undefined;
  },
): Promise<IssuedSession> {
  const { admin, now, stage } = args;
  if (args.previousToken !== undefined) {
    const previous = await findRunningAdminSession(trx, hashSessionToken(args.previousToken), now);
    if (previous !== null) await endAdminSessions(trx, { sessionId: previous.id }, 'superseded', now);
  }
  const endsAt = adminSessionEndsAt(now, stage);
  const { token, tokenHash } = newSessionToken();
  const sessionId = uuidv7(now);
  await insertAdminSession(trx, {
    id: sessionId,
    tokenHash,
    adminId: admin.id,
    createdAt: now,
    endsAt,
    ipAddress: args.meta.ipAddress,
    userAgent: args.meta.userAgent,
    stage,
  });
  if (stage === 'active') {
    await recordAdminLogin(trx, admin.id, now);
    await recordAudit(trx, now, AuditActions.AdminLogin, {
      AdminName: admin.userName,
      IpAddress: args.meta.ipAddress,
      ...(args.signInDescription === undefined ? {} : { Description: args.signInDescription }),
    });
  }
  return { sessionId, token, endsAt };
}

/**
 * When an admin session started at `now` in `stage` ends: ADMIN_SESSION_MINUTES later when active,
 * after the wait for its second factor otherwise.
 */
export function adminSessionEndsAt(now: number, stage: SessionStage): number {
  return now + (stage === 'active' ? ADMIN_SESSION_MINUTES * MINUTE_MS : PENDING_SECOND_FACTOR_MS);
}

async function insertUser(
  trx: Kysely<Database>,
  user: User,
  kiosk: boolean,
  endsAt: number,
  stage: SessionStage,
  args: StartArgs,
): Promise<IssuedSession> {
  const { token, tokenHash } = newSessionToken();
  const sessionId = uuidv7(args.now);
  await insertUserSession(trx, {
    id: sessionId,
    tokenHash,
    userId: user.id,
    createdAt: args.now,
    endsAt,
    ipAddress: args.meta.ipAddress,
    userAgent: args.meta.userAgent,
    kiosk,
    stage,
  });
  return { sessionId, token, endsAt };
}

/** Each sign-in gets a fresh token; the session it replaces (same browser) ends. */
async function endPreviousUserSession(
  trx: Kysely<Database>,
  previousToken: string | undefined,
  now: number,
): Promise<EndedUserSession[]> {
  if (previousToken === undefined) return [];
  const previous = await findRunningUserSession(trx, hashSessionToken(previousToken), now);
  return previous === null ? [] : endUserSessions(trx, { sessionId: previous.id }, 'superseded', now);
}

/**
 * A user may hold SessionLimit sessions (their own limit, else the licence's). A new sign-in beyond
 * it ends the oldest ones rather than locking the person out because of a forgotten browser.
 */
async function enforceSessionLimit(
  trx: Kysely<Database>,
  user: User,
  limit: number | null,
  newSessionId: string,
  now: number,
): Promise<EndedUserSession[]> {
  if (limit === null) return [];
  const active = await activeSessionsOfUser(trx, user.id, now);
  const excess = active.filter((session) => session.id !== newSessionId).slice(0, Math.max(0, active.length - limit));
  const ended: EndedUserSession[] = [];
  for (const session of excess) {
    ended.push(...(await endUserSessions(trx, { sessionId: session.id }, 'session-limit', now)));
  }
  if (ended.length > 0) {
    await recordAudit(trx, now, AuditActions.SessionLimitEnforced, {
      UserName: user.userName,
      Description: `${ended.length} older session(s) ended; limit ${limit}`,
    });
  }
  return ended;
}

/**
 * The user's own session limit, else the licence's; null for none. Read before the transaction that
 * starts the session: inside it, only the transaction's connection may be used (SQLite has one).
 */
export async function effectiveSessionLimit(ctx: AppContext, user: User): Promise<number | null> {
  if (user.sessionLimit !== null) return user.sessionLimit;
  const licensing = await currentLicensing(ctx);
  return licensing.Licensed && licensing.SessionLimit > 0 ? licensing.SessionLimit : null;
}
