import {
  ADMIN_SESSION_MINUTES,
  AuditActions,
  ErrorCodes,
  type AdminLoginBody,
  type AdminSessionInfo,
  type LoginBody,
  type UserSessionInfo,
} from '@postern/protocol';
import type { AppContext, RequestMeta } from '../app-context.js';
import { ForbiddenError, UnauthenticatedError } from '../http/errors.js';
import { recordAudit } from '../audit/audit.js';
import { readSettings } from '../settings/settings.js';
import { findUserById, findUserByUserName, recordUserLogin, type User } from '../users/users.repo.js';
import { findAdminById, findAdminByUserName, recordAdminLogin, type Admin } from '../admins/admins.repo.js';
import { uuidv7 } from '../lib/ids.js';
import { verifyAgainstDecoy, verifyPassword } from './passwords.js';
import { hashSessionToken, newSessionToken } from './session-tokens.js';
import type { SessionRealm } from './cookies.js';
import type { SessionStage } from '../store/schema.js';
import {
  endSession,
  findActiveAdminSession,
  findActiveUserSession,
  insertAdminSession,
  insertUserSession,
  type AdminSession,
  type UserSession,
} from './sessions.repo.js';

const MINUTE_MS = 60_000;

export interface StartedSession<Info> {
  /** The bearer token for the cookie; never stored. */
  token: string;
  /** Epoch ms the session ends; null for a kiosk session whose cookie must not outlive the browser. */
  cookieExpiresAt: number | null;
  info: Info;
}

/**
 * Checks a user's password and starts a session. A wrong user name, a wrong password and an account
 * that cannot sign in with a password get the same answer after the same work.
 */
export async function loginUser(
  ctx: AppContext,
  body: LoginBody,
  meta: RequestMeta,
  previousToken: string | undefined,
): Promise<StartedSession<UserSessionInfo>> {
  const user = await findUserByUserName(ctx.db, body.UserName);
  const passwordMatches = await localPasswordMatches(user, body.Password);
  const now = ctx.clock.now();
  if (user === null || !passwordMatches) {
    await recordAudit(ctx.db, now, AuditActions.UserLoginFailed, {
      UserName: body.UserName,
      IpAddress: meta.ipAddress,
    });
    throw new UnauthenticatedError(ErrorCodes.invalidCredentials);
  }
  // Only said once the password is right, so these answers do not reveal that an account exists.
  if (user.disabled || (user.validUntil !== null && user.validUntil <= now)) {
    throw new ForbiddenError(ErrorCodes.accountDisabled);
  }

  const settings = await readSettings(ctx.db);
  const minutes = body.KioskMode ? settings.KioskSessionDuration : user.durationMinutes;
  // A session never outlives the account.
  const endsAt = Math.min(now + minutes * MINUTE_MS, user.validUntil ?? Number.POSITIVE_INFINITY);
  const { token, tokenHash } = newSessionToken();
  await ctx.db.transaction().execute(async (trx) => {
    if (previousToken !== undefined) await endSessionByToken(trx, 'user', previousToken, now);
    await insertUserSession(trx, {
      id: uuidv7(now),
      tokenHash,
      userId: user.id,
      createdAt: now,
      endsAt,
      ipAddress: meta.ipAddress,
      userAgent: meta.userAgent,
      kiosk: body.KioskMode,
    });
    await recordUserLogin(trx, user.id, now);
    await recordAudit(trx, now, AuditActions.UserLogin, { UserName: user.userName, IpAddress: meta.ipAddress });
  });
  return {
    token,
    cookieExpiresAt: body.KioskMode ? null : endsAt,
    info: userSessionInfo(user, endsAt, body.KioskMode, settings.NewUserDashboard),
  };
}

export async function loginAdmin(
  ctx: AppContext,
  body: AdminLoginBody,
  meta: RequestMeta,
  previousToken: string | undefined,
): Promise<StartedSession<AdminSessionInfo>> {
  const admin = await findAdminByUserName(ctx.db, body.UserName);
  const passwordMatches = await localPasswordMatches(admin, body.Password);
  const now = ctx.clock.now();
  if (admin === null || !passwordMatches) {
    await recordAudit(ctx.db, now, AuditActions.AdminLoginFailed, {
      AdminName: body.UserName,
      IpAddress: meta.ipAddress,
    });
    throw new UnauthenticatedError(ErrorCodes.invalidCredentials);
  }
  if (!admin.loginEnabled) throw new ForbiddenError(ErrorCodes.loginNotPermitted);

  const endsAt = now + ADMIN_SESSION_MINUTES * MINUTE_MS;
  const { token, tokenHash } = newSessionToken();
  await ctx.db.transaction().execute(async (trx) => {
    if (previousToken !== undefined) await endSessionByToken(trx, 'admin', previousToken, now);
    await insertAdminSession(trx, {
      id: uuidv7(now),
      tokenHash,
      adminId: admin.id,
      createdAt: now,
      endsAt,
      ipAddress: meta.ipAddress,
      userAgent: meta.userAgent,
    });
    await recordAdminLogin(trx, admin.id, now);
    await recordAudit(trx, now, AuditActions.AdminLogin, { AdminName: admin.userName, IpAddress: meta.ipAddress });
  });
  return { token, cookieExpiresAt: endsAt, info: adminSessionInfo(admin) };
}

/** Ends the session behind `token`, if it is running, and audits it. */
export async function logoutUser(ctx: AppContext, token: string, meta: RequestMeta): Promise<void> {
  const now = ctx.clock.now();
  const found = await authenticateUser(ctx, token);
  if (found === null) return;
  await ctx.db.transaction().execute(async (trx) => {
    if (await endSession(trx, 'user', found.session.id, 'logout', now)) {
      await recordAudit(trx, now, AuditActions.UserLogout, {
        UserName: found.user.userName,
        IpAddress: meta.ipAddress,
      });
    }
  });
}

export async function logoutAdmin(ctx: AppContext, token: string, meta: RequestMeta): Promise<void> {
  const now = ctx.clock.now();
  const found = await authenticateAdmin(ctx, token);
  if (found === null) return;
  await ctx.db.transaction().execute(async (trx) => {
    if (await endSession(trx, 'admin', found.session.id, 'logout', now)) {
      await recordAudit(trx, now, AuditActions.AdminLogout, {
        AdminName: found.admin.userName,
        IpAddress: meta.ipAddress,
      });
    }
  });
}

/**
 * The running session and its user for a cookie token, or null. Sessions still waiting for their
 * second factor count only when `stage` asks for them (the OTP endpoints do).
 */
export async function authenticateUser(
  ctx: AppContext,
  token: string,
  stage: 'active' | 'pending' = 'active',
): Promise<{ session: UserSession; user: User } | null> {
  const session = await findActiveUserSession(ctx.db, hashSessionToken(token), ctx.clock.now());
  if (session === null || !stageMatches(session.stage, stage)) return null;
  const user = await findUserById(ctx.db, session.userId);
  if (user === null || user.disabled) return null;
  return { session, user };
}

export async function authenticateAdmin(
  ctx: AppContext,
  token: string,
  stage: 'active' | 'pending' = 'active',
): Promise<{ session: AdminSession; admin: Admin } | null> {
  const session = await findActiveAdminSession(ctx.db, hashSessionToken(token), ctx.clock.now());
  if (session === null || !stageMatches(session.stage, stage)) return null;
  const admin = await findAdminById(ctx.db, session.adminId);
  if (admin === null || !admin.loginEnabled) return null;
  return { session, admin };
}

function stageMatches(actual: SessionStage, wanted: 'active' | 'pending'): boolean {
  return wanted === 'active' ? actual === 'active' : actual !== 'active';
}

/**
 * Checks a password against a local account. An unknown account, or one that signs in elsewhere
 * (SAML, LDAP), costs the same work and fails, so timing does not tell them apart.
 */
async function localPasswordMatches(
  account: { authType: string; passwordHash: string | null } | null,
  password: string,
): Promise<boolean> {
  if (account === null || account.authType !== 'local' || account.passwordHash === null) {
    return verifyAgainstDecoy(password);
  }
  return verifyPassword(account.passwordHash, password);
}

/** Ends the session a sign-in replaces, so each privilege step gets a fresh token. */
async function endSessionByToken(db: AppContext['db'], realm: SessionRealm, token: string, now: number) {
  const find = realm === 'user' ? findActiveUserSession : findActiveAdminSession;
  const session = await find(db, hashSessionToken(token), now);
  if (session !== null) await endSession(db, realm, session.id, 'superseded', now);
}

export function userSessionInfo(
  user: User,
  endsAt: number,
  kiosk: boolean,
  newUserDashboard: boolean,
): UserSessionInfo {
  return {
    Name: user.name,
    UserName: user.userName,
    AuthType: user.authType,
    Ends: new Date(endsAt).toISOString(),
    KioskMode: kiosk,
    NewUserDashboard: newUserDashboard,
  };
}

export function adminSessionInfo(admin: Admin): AdminSessionInfo {
  return {
    Name: admin.name,
    UserName: admin.userName,
    AuthType: admin.authType,
    TotpEnabled: admin.totpEnabled,
    AdminTotpVerified: admin.totpVerified,
    TotpEnrolmentDeferable: false,
  };
}
