import {
  AuditActions,
  ErrorCodes,
  type AdminLoginBody,
  type AdminSessionInfo,
  type LoginBody,
  type UserSessionInfo,
} from '@postern/protocol';
import type { AppContext, RequestMeta } from '../app-context.js';
import { ApiError, ForbiddenError, TooManyRequestsError, UnauthenticatedError } from '../errors.js';
import type { SignInMethod } from '../metrics/server-metrics.js';
import { recordAudit } from '../audit/audit.js';
import { readSettings } from '../settings/settings.js';
import { findUserByUserName, type User } from '../users/users.repo.js';
import { findAdminByUserName, type Admin } from '../admins/admins.repo.js';
import { authenticateAdmin, authenticateUser } from './authenticate.js';
import { passwordMatches } from './credentials.js';
import { adminSessionInfo, requiresTotp, userSessionInfo } from './session-info.js';
import {
  effectiveSessionLimit,
  startAdminSession,
  startPendingUserSession,
  startUserSession,
  type IssuedSession,
} from './session-issue.js';
import { endAdminSessions, endUserSessions } from '../sessions/sessions.repo.js';
import { blockedFor, clearFailures, recordFailure, signInKeys, type SignInKeys, type ThrottleKey } from './throttle.js';

/** The cookies a request carried, which a sign-in replaces. */
export interface PreviousTokens {
  user: string | undefined;
  admin: string | undefined;
}

/** What a user-form sign-in led to; the route turns each into an answer and a cookie. */
export type UserSignInOutcome =
  | { kind: 'signed-in'; session: IssuedSession; kiosk: boolean; info: UserSessionInfo }
  | {
      kind: 'second-factor';
      session: IssuedSession;
      error: typeof ErrorCodes.totpVerificationRequired | typeof ErrorCodes.totpEnrolmentRequired;
    }
  /** An administrator used the user form: they are signed in to the console instead. */
  | { kind: 'admin'; session: IssuedSession; info: AdminSessionInfo };

export interface AdminSignInOutcome {
  session: IssuedSession;
  info: AdminSessionInfo;
}

/**
 * Signs a person in on the user form. Order matters for security: a throttled attempt (its account
 * from this address, the address, or the account's ceiling) is refused before any password is
 * checked (so the right password gets the same answer as a wrong one), and whether an account is
 * disabled is said only after its password matched.
 */
export async function signInUser(
  ctx: AppContext,
  body: LoginBody,
  meta: RequestMeta,
  previous: PreviousTokens,
): Promise<UserSignInOutcome> {
  const attempt: SignInAttempt = { method: 'local' };
  return countedSignIn(ctx, attempt, signInUserOf(ctx, body, meta, previous, attempt));
}

async function signInUserOf(
  ctx: AppContext,
  body: LoginBody,
  meta: RequestMeta,
  previous: PreviousTokens,
  attempt: SignInAttempt,
): Promise<UserSignInOutcome> {
  const keys = signInKeys(body.UserName, meta.ipAddress);
  await refuseWhileBlocked(ctx, keys);
  const user = await findUserByUserName(ctx.db, body.UserName);
  // No such user: the name may be an administrator's, who are sent to their console (spec: unauthorised).
  const admin = user === null ? await findAdminByUserName(ctx.db, body.UserName) : null;
  if ((user ?? admin)?.authType === 'LDAP') attempt.method = 'ldap';
  const matched = await passwordMatches(ctx, user ?? admin, body.Password);
  if (!matched) {
    await countFailure(ctx, keys, meta, { UserName: body.UserName });
    throw new UnauthenticatedError({ code: ErrorCodes.invalidCredentials });
  }
  await clearFailures(ctx.db, keys.pair);
  if (admin !== null) {
    const signedIn = await startAdminSignIn(ctx, admin, meta, previous.admin);
    return { kind: 'admin', ...signedIn };
  }
  return startUserSignIn(ctx, user as User, body.KioskMode, meta, previous.user);
}

/** Signs an administrator in on the admin form. */
export async function signInAdmin(
  ctx: AppContext,
  body: AdminLoginBody,
  meta: RequestMeta,
  previous: PreviousTokens,
): Promise<AdminSignInOutcome> {
  const attempt: SignInAttempt = { method: 'local' };
  return countedSignIn(ctx, attempt, signInAdminOf(ctx, body, meta, previous, attempt));
}

async function signInAdminOf(
  ctx: AppContext,
  body: AdminLoginBody,
  meta: RequestMeta,
  previous: PreviousTokens,
  attempt: SignInAttempt,
): Promise<AdminSignInOutcome> {
  const keys = signInKeys(body.UserName, meta.ipAddress);
  await refuseWhileBlocked(ctx, keys);
  const admin = await findAdminByUserName(ctx.db, body.UserName);
  if (admin?.authType === 'LDAP') attempt.method = 'ldap';
  if (!(await passwordMatches(ctx, admin, body.Password)) || admin === null) {
    await countFailure(ctx, keys, meta, { AdminName: body.UserName });
    throw new UnauthenticatedError({ code: ErrorCodes.invalidCredentials });
  }
  await clearFailures(ctx.db, keys.pair);
  return startAdminSignIn(ctx, admin, meta, previous.admin);
}

async function startUserSignIn(
  ctx: AppContext,
  user: User,
  kiosk: boolean,
  meta: RequestMeta,
  previousToken: string | undefined,
): Promise<UserSignInOutcome> {
  const now = ctx.clock.now();
  if (user.disabled || (user.validUntil !== null && user.validUntil <= now)) {
    throw new ForbiddenError({ code: ErrorCodes.accountDisabled });
  }
  if (requiresTotp(user)) {
    const stage = user.totpVerified ? 'totp' : 'totp-enrol';
    const started = await ctx.db
      .transaction()
      .execute((trx) => startPendingUserSession(trx, { user, kiosk, stage, meta, now, previousToken }));
    await ctx.sessionEvents.userSessionsEnded(started.ended);
    const error = user.totpVerified ? ErrorCodes.totpVerificationRequired : ErrorCodes.totpEnrolmentRequired;
    return { kind: 'second-factor', session: started, error };
  }
  const sessionLimit = await effectiveSessionLimit(ctx, user);
  const settings = await readSettings(ctx.db);
  const started = await ctx.db.transaction().execute(async (trx) => {
    const issued = await startUserSession(trx, { user, kiosk, sessionLimit, meta, now, previousToken });
    // The answer is built before the commit: if it cannot be, no session is left behind.
    return { ...issued, info: userSessionInfo(user, issued.endsAt, kiosk, settings.NewUserDashboard) };
  });
  await ctx.sessionEvents.userSessionsEnded(started.ended);
  return { kind: 'signed-in', session: started, kiosk, info: started.info };
}

async function startAdminSignIn(
  ctx: AppContext,
  admin: Admin,
  meta: RequestMeta,
  previousToken: string | undefined,
): Promise<AdminSignInOutcome> {
  if (!admin.loginEnabled) throw new ForbiddenError({ code: ErrorCodes.loginNotPermitted });
  const now = ctx.clock.now();
  const stage = !requiresTotp(admin) ? 'active' : admin.totpVerified ? 'totp' : 'totp-enrol';
  const session = await ctx.db
    .transaction()
    .execute((trx) => startAdminSession(trx, { admin, stage, meta, now, previousToken }));
  return { session, info: adminSessionInfo(admin) };
}

/** Ends the session behind `token` (any stage), if it is running, and audits it. */
export async function signOutUser(ctx: AppContext, token: string, meta: RequestMeta): Promise<void> {
  const found = await authenticateUser(ctx, token, 'any');
  if (found === null) return;
  const now = ctx.clock.now();
  const ended = await ctx.db.transaction().execute(async (trx) => {
    const endedNow = await endUserSessions(trx, { sessionId: found.session.id }, 'logout', now);
    if (endedNow.length > 0 && found.session.stage === 'active') {
      await recordAudit(trx, now, AuditActions.UserLogout, {
        UserName: found.user.userName,
        IpAddress: meta.ipAddress,
      });
    }
    return endedNow;
  });
  await ctx.sessionEvents.userSessionsEnded(ended);
}

export async function signOutAdmin(ctx: AppContext, token: string, meta: RequestMeta): Promise<void> {
  const found = await authenticateAdmin(ctx, token, 'any');
  if (found === null) return;
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    const ended = await endAdminSessions(trx, { sessionId: found.session.id }, 'logout', now);
    if (ended > 0 && found.session.stage === 'active') {
      await recordAudit(trx, now, AuditActions.AdminLogout, {
        AdminName: found.admin.userName,
        IpAddress: meta.ipAddress,
      });
    }
  });
}

/**
 * How a password-form sign-in is counted: local until the account turns out to be an LDAP one. A
 * throttled attempt is refused before the account is looked up, so it is counted as local (the form).
 */
export interface SignInAttempt {
  method: SignInMethod;
}

/**
 * Counts a sign-in's outcome in the metrics: success (signed in, or on to the second factor),
 * banned (the throttle refused it), failure (any other refusal). A store or directory outage
 * (5xx) is not an attempt that failed, and is not counted.
 */
export async function countedSignIn<T>(ctx: AppContext, attempt: SignInAttempt, signIn: Promise<T>): Promise<T> {
  try {
    const outcome = await signIn;
    ctx.metrics.signIn(attempt.method, 'success');
    return outcome;
  } catch (error) {
    if (error instanceof TooManyRequestsError) ctx.metrics.signIn(attempt.method, 'banned');
    else if (error instanceof ApiError && error.statusCode < 500) ctx.metrics.signIn(attempt.method, 'failure');
    throw error;
  }
}

/**
 * 429 with Retry-After while the account from this address, the address or the account's ceiling
 * holds attempts back; the password is not even looked at.
 */
export async function refuseWhileBlocked(ctx: AppContext, keys: SignInKeys | readonly ThrottleKey[]): Promise<void> {
  const waitMs = await blockedFor(ctx.db, 'all' in keys ? keys.all : keys, ctx.clock.now());
  if (waitMs > 0) throw new TooManyRequestsError({ retryAfterSeconds: waitMs / 1000 });
}

/**
 * Counts a failed password and audits it; the failure that starts a block is audited as
 * SignInBlocked, and the one that starts the account's slowdown as SignInSlowed.
 */
async function countFailure(
  ctx: AppContext,
  keys: SignInKeys,
  meta: RequestMeta,
  who: { UserName: string } | { AdminName: string },
): Promise<void> {
  const now = ctx.clock.now();
  const outcome = await recordFailure(ctx.db, keys.all, now);
  const failedAction = 'AdminName' in who ? AuditActions.AdminLoginFailed : AuditActions.UserLoginFailed;
  const detail = { ...who, IpAddress: meta.ipAddress };
  await recordAudit(ctx.db, now, failedAction, detail);
  if (outcome.blocked) await recordAudit(ctx.db, now, AuditActions.SignInBlocked, detail);
  if (outcome.slowed) await recordAudit(ctx.db, now, AuditActions.SignInSlowed, detail);
}
