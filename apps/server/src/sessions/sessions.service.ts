import { AuditActions, type AdminSessionRecord, type UserSessionRecord } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { NotFoundError } from '../errors.js';
import { recordAudit } from '../audit/audit.js';
import type { Admin } from '../admins/admins.repo.js';
import { activeSessionsOfAdmin, activeSessionsOfUser, endAdminSessions, endUserSessions } from './sessions.repo.js';
import type { AdminSession } from './sessions.repo.js';
import {
  readDeviceCookie,
  renewDeviceCookie,
  revokeDeviceCookies,
  trustedDevice,
  type IssuedDeviceCookie,
} from '../auth/device-cookie.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** A user's running sessions, oldest first. */
export async function listUserSessions(ctx: AppContext, userId: string): Promise<UserSessionRecord[]> {
  const sessions = await activeSessionsOfUser(ctx.db, userId, ctx.clock.now());
  return sessions.map((session) => ({
    ID: session.id,
    Created: iso(session.createdAt),
    Ends: iso(session.endsAt),
    IPAddress: session.ipAddress,
    KioskMode: session.kiosk,
  }));
}

/** An admin's running sessions, marking the one asking. */
export async function listAdminSessions(
  ctx: AppContext,
  adminId: string,
  current: AdminSession,
): Promise<AdminSessionRecord[]> {
  const sessions = await activeSessionsOfAdmin(ctx.db, adminId, ctx.clock.now());
  return sessions.map((session) => ({
    ID: session.id,
    Created: iso(session.createdAt),
    Ends: iso(session.endsAt),
    IPAddress: session.ipAddress,
    Current: session.id === current.id,
  }));
}

/**
 * DELETE /api/admin/sessions: ends every user session; their grants follow through the session hook.
 * Every user's device cookies are revoked too: no browser is trusted until it signs in again.
 */
export async function invalidateAllUserSessions(ctx: AppContext, actor: Admin): Promise<number> {
  const now = ctx.clock.now();
  const ended = await ctx.db.transaction().execute(async (trx) => {
    const endedNow = await endUserSessions(trx, { all: true }, 'invalidated', now);
    await revokeDeviceCookies(trx, 'user', 'all', now);
    await recordAudit(trx, now, AuditActions.UserSessionsInvalidated, {
      AdminName: actor.userName,
      Description: `${endedNow.length} session(s) ended`,
    });
    return endedNow;
  });
  await ctx.sessionEvents.userSessionsEnded(ended);
  return ended.length;
}

/** DELETE /api/admin/sessions/{id} */
export async function invalidateUserSession(ctx: AppContext, actor: Admin, sessionId: string): Promise<void> {
  const now = ctx.clock.now();
  const ended = await ctx.db.transaction().execute(async (trx) => {
    const endedNow = await endUserSessions(trx, { sessionId }, 'invalidated', now);
    if (endedNow.length === 0) throw new NotFoundError({ extra: 'no running session with that ID' });
    await recordAudit(trx, now, AuditActions.UserSessionDeleted, { AdminName: actor.userName, Description: sessionId });
    return endedNow;
  });
  await ctx.sessionEvents.userSessionsEnded(ended);
}

/**
 * DELETE /api/admin/adminsessions: ends every other admin session. The admin asking stays signed in,
 * so the action cannot lock the last person out of the console by accident. Every administrator's
 * device cookies are revoked, the asking one's included; only the browser asking, when it was a
 * trusted device of the asking admin, is trusted still: its device cookie is renewed (`device`).
 */
export async function invalidateOtherAdminSessions(
  ctx: AppContext,
  actor: Admin,
  current: AdminSession,
  deviceCookie: string | undefined,
): Promise<{ ended: number; device: IssuedDeviceCookie | null }> {
  const now = ctx.clock.now();
  const devices = readDeviceCookie(ctx.secrets, deviceCookie, now);
  const account = { realm: 'admin', id: actor.id } as const;
  const keepsTrust = (await trustedDevice(ctx.db, devices, account)) !== null;
  const ended = await ctx.db.transaction().execute(async (trx) => {
    const endedNow = await endAdminSessions(trx, { allExcept: current.id }, 'invalidated', now);
    await revokeDeviceCookies(trx, 'admin', 'all', now);
    await recordAudit(trx, now, AuditActions.AdminSessionsInvalidated, {
      AdminName: actor.userName,
      Description: `${endedNow} session(s) ended`,
    });
    return endedNow;
  });
  return { ended, device: keepsTrust ? await renewDeviceCookie(ctx, devices, account) : null };
}

/** DELETE /api/admin/adminsessions/{id}: any admin session, the asking one included (that signs out). */
export async function invalidateAdminSession(ctx: AppContext, actor: Admin, sessionId: string): Promise<void> {
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    const ended = await endAdminSessions(trx, { sessionId }, 'invalidated', now);
    if (ended === 0) throw new NotFoundError({ extra: 'no running admin session with that ID' });
    await recordAudit(trx, now, AuditActions.AdminSessionDeleted, {
      AdminName: actor.userName,
      Description: sessionId,
    });
  });
}
