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
import { DIRECTORY } from '../lib/account-provider.js';
import { authenticateAdmin, authenticateUser } from './authenticate.js';
import { passwordMatches } from './credentials.js';
import { adminSessionInfo, requiresTotp, secondFactorStage, userSessionInfo } from './session-info.js';
import { countPasskeys } from '../webauthn/passkeys.repo.js';
import {
  effectiveSessionLimit,
  startAdminSession,
  startPendingUserSession,
  startUserSession,
  type IssuedSession,
} from './session-issue.js';
import { endAdminSessions, endUserSessions } from '../sessions/sessions.repo.js';
import {
  blockedFor,
  clearFailures,
  deviceKey,
  recordFailure,
  signInKeys,
  type SignInKeys,
  type ThrottleKey,
} from './throttle.js';
import {
  readDeviceCookie,
  renewDeviceCookie,
  trustedDevice,
  type AccountRef,
  type DeviceEntry,
  type IssuedDeviceCookie,
} from './device-cookie.js';

/** The cookies a request carried, which a sign-in replaces. */
export interface PreviousTokens {
  user: string | undefined;
  admin: string | undefined;
  /** The device cookie (device-cookie.ts): judged by its own budget when it is the account's; renewed. */
  device: string | undefined;
}

/** What a user-form sign-in led to once the password matched. */
type UserSignedIn =
  | { kind: 'signed-in'; session: IssuedSession; kiosk: boolean; info: UserSessionInfo }
  | {
      kind: 'second-factor';
      session: IssuedSession;
      error: typeof ErrorCodes.totpVerificationRequired | typeof ErrorCodes.totpEnrolmentRequired;
    }
  /** An administrator used the user form: they are signed in to the console instead. */
  | { kind: 'admin'; session: IssuedSession; info: AdminSessionInfo };

/**
 * What a user-form sign-in led to; the route turns each into an answer and cookies. Each passed the
 * password step, so each renews the browser's device cookie (OWASP issues it there, before a second
 * factor: it governs password guessing only).
 */
export type UserSignInOutcome = UserSignedIn & { device: IssuedDeviceCookie };

interface AdminSignedIn {
  session: IssuedSession;
  info: AdminSessionInfo;
}

/** An administrator's sign-in, with the browser's renewed device cookie. */
export type AdminSignInOutcome = AdminSignedIn & { device: IssuedDeviceCookie };

/**
 * Signs a person in on the user form. Order matters for security: a throttled attempt (a trusted
 * device's own budget; for anyone else its account from this address, the address, or the account's
 * ceiling) is refused before any password is checked (so the right password gets the same answer as
 * a wrong one), and whether an account is disabled is said only after its password matched.
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
  const budget = await passwordBudget(ctx, body.UserName, meta, previous.device, async () =>
    accountRef(await userFormAccount(ctx, body.UserName)),
  );
  await refuseWhileBlocked(ctx, budget.keys);
  const { user, admin } = await userFormAccount(ctx, body.UserName);
  if ((user ?? admin)?.authType === 'LDAP') attempt.method = 'ldap';
  const matched = await passwordMatches(ctx, user ?? admin, body.Password);
  if (!matched) {
    await countFailure(ctx, budget, meta, { UserName: body.UserName });
    throw new UnauthenticatedError({ code: ErrorCodes.invalidCredentials });
  }
  await clearBudget(ctx, budget);
  if (admin !== null) {
    const signedIn = await startAdminSignIn(ctx, admin, meta, previous.admin);
    const device = await renewDeviceCookie(ctx, budget.devices, { realm: 'admin', id: admin.id });
    return { kind: 'admin', ...signedIn, device };
  }
  // Neither an administrator nor a user: the password could not have matched.
  const account = user as User;
  const signedIn = await startUserSignIn(ctx, account, body.KioskMode, meta, previous.user);
  const device = await renewDeviceCookie(
    ctx,
    budget.devices,
    { realm: 'user', id: account.id },
    {
      untilBrowserCloses: body.KioskMode,
    },
  );
  return { ...signedIn, device };
}

/**
 * The account a name on the user form signs in: a user, or else an administrator of that name, both
 * in Postern's directory (an OpenID Connect account of the same name is another person's and has no
 * password here).
 */
async function userFormAccount(ctx: AppContext, userName: string): Promise<{ user: User | null; admin: Admin | null }> {
  const user = await findUserByUserName(ctx.db, DIRECTORY, userName);
  // No such user: the name may be an administrator's, who are sent to their console (spec: unauthorised).
  const admin = user === null ? await findAdminByUserName(ctx.db, DIRECTORY, userName) : null;
  return { user, admin };
}

function accountRef({ user, admin }: { user: User | null; admin: Admin | null }): AccountRef | null {
  if (user !== null) return { realm: 'user', id: user.id };
  return admin === null ? null : { realm: 'admin', id: admin.id };
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
  const budget = await passwordBudget(ctx, body.UserName, meta, previous.device, async () => {
    const known = await findAdminByUserName(ctx.db, DIRECTORY, body.UserName);
    return known === null ? null : { realm: 'admin', id: known.id };
  });
  await refuseWhileBlocked(ctx, budget.keys);
  const admin = await findAdminByUserName(ctx.db, DIRECTORY, body.UserName);
  if (admin?.authType === 'LDAP') attempt.method = 'ldap';
  if (!(await passwordMatches(ctx, admin, body.Password)) || admin === null) {
    await countFailure(ctx, budget, meta, { AdminName: body.UserName });
    throw new UnauthenticatedError({ code: ErrorCodes.invalidCredentials });
  }
  await clearBudget(ctx, budget);
  const signedIn = await startAdminSignIn(ctx, admin, meta, previous.admin);
  return { ...signedIn, device: await renewDeviceCookie(ctx, budget.devices, { realm: 'admin', id: admin.id }) };
}

async function startUserSignIn(
  ctx: AppContext,
  user: User,
  kiosk: boolean,
  meta: RequestMeta,
  previousToken: string | undefined,
): Promise<UserSignedIn> {
  const now = ctx.clock.now();
  assertUserMaySignIn(user, now);
  const stage = requiresTotp(user)
    ? secondFactorStage(user, (await countPasskeys(ctx.db, 'user', user.id)) > 0)
    : 'active';
  if (stage !== 'active') {
    const started = await ctx.db
      .transaction()
      .execute((trx) => startPendingUserSession(trx, { user, kiosk, stage, meta, now, previousToken }));
    await ctx.sessionEvents.userSessionsEnded(started.ended);
    const error = stage === 'totp' ? ErrorCodes.totpVerificationRequired : ErrorCodes.totpEnrolmentRequired;
    return { kind: 'second-factor', session: started, error };
  }
  const started = await startFullUserSession(ctx, user, kiosk, meta, previousToken);
  return { kind: 'signed-in', session: started, kiosk, info: started.info };
}

/**
 * Starts a fully signed-in user session once every factor passed (the password alone when the
 * account needs no second factor, or a passkey that proves both), within the session limit.
 */
export async function startFullUserSession(
  ctx: AppContext,
  user: User,
  kiosk: boolean,
  meta: RequestMeta,
  previousToken: string | undefined,
  signInDescription?: string,
): Promise<IssuedSession & { info: UserSessionInfo }> {
  const now = ctx.clock.now();
  const sessionLimit = await effectiveSessionLimit(ctx, user);
  const settings = await readSettings(ctx.db);
  const started = await ctx.db.transaction().execute(async (trx) => {
    const issued = await startUserSession(trx, {
      user,
      kiosk,
      sessionLimit,
      meta,
      now,
      previousToken,
      signInDescription,
    });
    // The answer is built before the commit: if it cannot be, no session is left behind.
    return { ...issued, info: userSessionInfo(user, issued.endsAt, kiosk, settings.NewUserDashboard) };
  });
  await ctx.sessionEvents.userSessionsEnded(started.ended);
  return started;
}

/** A user may start a sign-in: the account is neither disabled nor past its ValidUntil (403 otherwise). */
export function assertUserMaySignIn(user: User, now: number): void {
  if (user.disabled || (user.validUntil !== null && user.validUntil <= now)) {
    throw new ForbiddenError({ code: ErrorCodes.accountDisabled });
  }
}

/**
 * Starts an administrator's sign-in once their first factor passed, or every factor (`passkey`: a
 * passkey sign-in, named in the audit entry, which proves both).
 */
export async function startAdminSignIn(
  ctx: AppContext,
  admin: Admin,
  meta: RequestMeta,
  previousToken: string | undefined,
  passkey?: { signInDescription: string },
): Promise<AdminSignedIn> {
  if (!admin.loginEnabled) throw new ForbiddenError({ code: ErrorCodes.loginNotPermitted });
  const now = ctx.clock.now();
  const hasPasskeys = (await countPasskeys(ctx.db, 'admin', admin.id)) > 0;
  const stage = passkey === undefined ? secondFactorStage(admin, hasPasskeys) : 'active';
  const signInDescription = passkey?.signInDescription;
  const session = await ctx.db
    .transaction()
    .execute((trx) => startAdminSession(trx, { admin, stage, meta, now, previousToken, signInDescription }));
  return { session, info: adminSessionInfo(admin, hasPasskeys) };
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
 * The throttle keys a password attempt is judged by. A browser presenting a valid device cookie for
 * the very account (device-cookie.ts) is judged by that device cookie's own key alone: the keys that
 * strangers fill (the account's pair, the address, the account's ceiling) neither hold it back nor
 * count its failures. Every other client is untrusted and judged by those keys, as before.
 */
export interface PasswordBudget {
  /** What holds the attempt back, and what a failure counts against. */
  keys: readonly ThrottleKey[];
  /** What a matching password clears: its account from this address, and the device's own key. */
  clearedBySuccess: readonly ThrottleKey[];
  /** The device cookie entry that made the browser trusted, or null for an untrusted client. */
  trusted: DeviceEntry | null;
  /** The presented device cookie's genuine entries, kept when a success renews it. */
  devices: readonly DeviceEntry[];
}

/**
 * The budget of an attempt on `userName` by a browser presenting `deviceCookie`. `account` finds the
 * account the name signs in; it is asked only when the cookie holds a genuine entry, so an untrusted
 * client is refused while blocked without the name being looked up.
 */
export async function passwordBudget(
  ctx: AppContext,
  userName: string,
  meta: RequestMeta,
  deviceCookie: string | undefined,
  account: () => Promise<AccountRef | null>,
): Promise<PasswordBudget> {
  const keys = signInKeys(userName, meta.ipAddress);
  const devices = readDeviceCookie(ctx.secrets, deviceCookie, ctx.clock.now());
  const named = devices.length > 0 ? await account() : null;
  const trusted = named === null ? null : await trustedDevice(ctx.db, devices, named);
  if (trusted === null) return { keys: keys.all, clearedBySuccess: [keys.pair], trusted, devices };
  const device = deviceKey(trusted.nonce);
  return { keys: [device], clearedBySuccess: [keys.pair, device], trusted, devices };
}

/** Forgets what a matching password clears. */
export async function clearBudget(ctx: AppContext, budget: PasswordBudget): Promise<void> {
  for (const key of budget.clearedBySuccess) await clearFailures(ctx.db, key);
}

/** How the audit log tells a trusted browser's lockout from an untrusted client's block. */
const DEVICE_LOCKOUT = 'device cookie locked out';

/**
 * Counts a failed password and audits it; the failure that starts a block (of the account's
 * untrusted clients, or of one device cookie) is audited as SignInBlocked, and the one that starts
 * the account's slowdown as SignInSlowed.
 */
async function countFailure(
  ctx: AppContext,
  budget: PasswordBudget,
  meta: RequestMeta,
  who: { UserName: string } | { AdminName: string },
): Promise<void> {
  const now = ctx.clock.now();
  const outcome = await recordFailure(ctx.db, budget.keys, now);
  const failedAction = 'AdminName' in who ? AuditActions.AdminLoginFailed : AuditActions.UserLoginFailed;
  const detail = { ...who, IpAddress: meta.ipAddress };
  await recordAudit(ctx.db, now, failedAction, detail);
  if (outcome.blocked) {
    const blocked = budget.trusted === null ? detail : { ...detail, Description: DEVICE_LOCKOUT };
    await recordAudit(ctx.db, now, AuditActions.SignInBlocked, blocked);
  }
  if (outcome.slowed) await recordAudit(ctx.db, now, AuditActions.SignInSlowed, detail);
}
