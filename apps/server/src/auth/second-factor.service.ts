import { AuditActions, ErrorCodes, type OtpSecret, type OtpVerifyResult } from '@postern/protocol';
import type { AppContext, RequestMeta } from '../app-context.js';
import { BadRequestError, TooManyRequestsError, UnauthenticatedError } from '../errors.js';
import { recordAudit } from '../audit/audit.js';
import { readSettings } from '../settings/settings.js';
import type { User } from '../users/users.repo.js';
import type { Admin } from '../admins/admins.repo.js';
import type { UserSession, AdminSession } from '../sessions/sessions.repo.js';
import { endAdminSessions, endUserSessions } from '../sessions/sessions.repo.js';
import { authenticateAdmin, authenticateUser } from './authenticate.js';
import { adminSessionInfo, MAX_TOTP_DEFERRALS, userSessionInfo } from './session-info.js';
import { effectiveSessionLimit, startAdminSession, startUserSession, type IssuedSession } from './session-issue.js';
import { beginSecondFactorAttempt, clearSecondFactorFailures } from '../sessions/second-factor-throttle.js';
import { isSpentStep, newTotpSecret, totpStep, totpUri } from './totp.js';
import {
  claimStep,
  confirmEnrolment,
  openPendingSecret,
  openSecret,
  storePendingSecret,
  type TotpTable,
} from '../sessions/totp-store.js';
import type { AdminSessionInfo, UserSessionInfo } from '@postern/protocol';

type Realm = 'user' | 'admin';

/** The outcome of a code, with the session to put in the cookie when one started. */
export interface VerifiedSecondFactor<Info> {
  result: OtpVerifyResult;
  /** The fully signed-in session that replaces the pending one (every outcome signs in). */
  session: IssuedSession;
  /** The session as the web app keeps it. */
  info: Info;
}

export interface PendingSignIn<Account> {
  account: Account;
  session: UserSession | AdminSession;
}

/** GET /api/otp/generate (and the admin twin): a new secret for a sign-in that must enrol. */
export async function generateSecret(ctx: AppContext, realm: Realm, token: string | undefined): Promise<OtpSecret> {
  const pending = await pendingSignIn(ctx, realm, token);
  if (pending.session.stage !== 'totp-enrol') throw new BadRequestError({ code: ErrorCodes.alreadyVerified2fa });
  const secret = newTotpSecret();
  await storePendingSecret(ctx.db, ctx.secrets, tableOf(realm), pending.account.id, secret);
  return { Secret: secret, URL: totpUri(secret, pending.account.userName) };
}

/**
 * POST /api/otp/verify: a code finishes a sign-in, or confirms an enrolment. Either way the pending
 * sign-in becomes a full session: a code from the new authenticator proves its possession as a
 * sign-in code would, and asking for another would refuse the same code (its step is claimed).
 */
export async function verifyUserCode(
  ctx: AppContext,
  token: string | undefined,
  code: string,
  meta: RequestMeta,
): Promise<VerifiedSecondFactor<UserSessionInfo>> {
  const { account: user, session } = await pendingSignIn<User>(ctx, 'user', token);
  const proven = await checkCode(ctx, 'user', user, session.stage, code, meta);
  const enrolling = session.stage === 'totp-enrol';
  const finished = await finishUserSignIn(ctx, user, session as UserSession, meta, {
    before: enrolling ? (trx) => confirmEnrolmentIn(trx, ctx, 'user', user, proven, ctx.clock.now()) : undefined,
  });
  return { result: { Outcome: enrolling ? 'Enrolled' : 'SignedIn' }, ...finished };
}

/** What finishing a pending sign-in may add: work inside its transaction, and what its audit entry says. */
export interface FinishOptions {
  /** Runs first in the sign-in's transaction (an enrolment confirmed, a passkey stored or its use recorded). */
  before?: ((trx: AppContext['db']) => Promise<void>) | undefined;
  /** How the second factor was passed, for the sign-in's audit entry (a passkey's name). */
  signInDescription?: string | undefined;
}

/**
 * Finishes a user's sign-in that passed its second factor: the pending session ends and a full one
 * (a new token) starts in its place, within the user's session limit, audited as the sign-in.
 */
export async function finishUserSignIn(
  ctx: AppContext,
  user: User,
  session: UserSession,
  meta: RequestMeta,
  options: FinishOptions = {},
): Promise<{ session: IssuedSession; info: UserSessionInfo }> {
  const now = ctx.clock.now();
  const kiosk = session.kiosk;
  const sessionLimit = await effectiveSessionLimit(ctx, user);
  const settings = await readSettings(ctx.db);
  const started = await ctx.db.transaction().execute(async (trx) => {
    await options.before?.(trx);
    const ended = await endUserSessions(trx, { sessionId: session.id }, 'second-factor-passed', now);
    await clearSecondFactorFailures(trx, user.userName);
    const issued = await startUserSession(trx, {
      user,
      kiosk,
      sessionLimit,
      meta,
      now,
      previousToken: undefined,
      signInDescription: options.signInDescription,
    });
    // The answer is built before the commit: if it cannot be, no session is left behind.
    const info = userSessionInfo(user, issued.endsAt, kiosk, settings.NewUserDashboard);
    return { ...issued, ended: [...ended, ...issued.ended], info };
  });
  await ctx.sessionEvents.userSessionsEnded(started.ended);
  return { session: started, info: started.info };
}

/** POST /api/admin/otp/verify: a code, or a request to set up the authenticator next time. */
export async function verifyAdminCode(
  ctx: AppContext,
  token: string | undefined,
  request: { code: string } | { defer: true },
  meta: RequestMeta,
): Promise<VerifiedSecondFactor<AdminSessionInfo>> {
  const { account: admin, session } = await pendingSignIn<Admin>(ctx, 'admin', token);
  const now = ctx.clock.now();
  if ('defer' in request) {
    if (session.stage !== 'totp-enrol' || admin.totpDeferrals >= MAX_TOTP_DEFERRALS) {
      throw new BadRequestError({ code: ErrorCodes.totpEnrolmentNotDeferable });
    }
    const started = await ctx.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('admins')
        .set({ totpDeferrals: admin.totpDeferrals + 1 })
        .where('id', '=', admin.id)
        .execute();
      await recordAudit(trx, now, AuditActions.TotpEnrolmentDeferred, {
        AdminName: admin.userName,
        IpAddress: meta.ipAddress,
      });
      return upgradeAdminSession(trx, admin, session.id, meta, now);
    });
    return {
      result: { Outcome: 'Deferred' },
      session: started,
      info: adminSessionInfo({ ...admin, totpDeferrals: admin.totpDeferrals + 1 }),
    };
  }
  const proven = await checkCode(ctx, 'admin', admin, session.stage, request.code, meta);
  // An enrolment signs in at once, as a sign-in code does (see verifyUserCode).
  const enrolling = session.stage === 'totp-enrol';
  const started = await finishAdminSignIn(ctx, admin, session.id, meta, {
    before: enrolling ? (trx) => confirmEnrolmentIn(trx, ctx, 'admin', admin, proven, now) : undefined,
  });
  const info = adminSessionInfo(enrolling ? { ...admin, totpVerified: true } : admin);
  return { result: { Outcome: enrolling ? 'Enrolled' : 'SignedIn' }, session: started, info };
}

/** Finishes an administrator's sign-in that passed its second factor, as {@link finishUserSignIn}. */
export async function finishAdminSignIn(
  ctx: AppContext,
  admin: Admin,
  pendingSessionId: string,
  meta: RequestMeta,
  options: FinishOptions = {},
): Promise<IssuedSession> {
  const now = ctx.clock.now();
  return ctx.db.transaction().execute(async (trx) => {
    await options.before?.(trx);
    return upgradeAdminSession(trx, admin, pendingSessionId, meta, now, options.signInDescription);
  });
}

async function upgradeAdminSession(
  trx: AppContext['db'],
  admin: Admin,
  pendingSessionId: string,
  meta: RequestMeta,
  now: number,
  signInDescription?: string,
): Promise<IssuedSession> {
  await endAdminSessions(trx, { sessionId: pendingSessionId }, 'second-factor-passed', now);
  await clearSecondFactorFailures(trx, admin.userName);
  return startAdminSession(trx, { admin, stage: 'active', meta, now, previousToken: undefined, signInDescription });
}

/**
 * The sign-in waiting for a second factor behind `token`. A fully signed-in session asking is told it
 * has verified already; anything else is an ended or unknown sign-in.
 */
export async function pendingSignIn<Account extends User | Admin>(
  ctx: AppContext,
  realm: Realm,
  token: string | undefined,
): Promise<PendingSignIn<Account>> {
  if (token === undefined) throw new UnauthenticatedError();
  const pending =
    realm === 'user' ? await authenticateUser(ctx, token, 'pending') : await authenticateAdmin(ctx, token, 'pending');
  if (pending !== null) {
    const account = 'user' in pending ? pending.user : pending.admin;
    return { account: account as Account, session: pending.session };
  }
  const active = realm === 'user' ? await authenticateUser(ctx, token) : await authenticateAdmin(ctx, token);
  if (active !== null) throw new BadRequestError({ code: ErrorCodes.userAlreadyVerified });
  throw new UnauthenticatedError();
}

/**
 * Checks a code against the secret the stage calls for. Returns the time step the code belongs to
 * (claimed, so the same code cannot be used again) and the secret it matched.
 *
 * A code for the enrolled secret counts on the account's second-factor counter before it is checked
 * (second-factor-throttle.ts), so guessing slows and then stops whatever the password step does. A
 * code during enrolment does not count: its secret was just shown to the one holding this sign-in.
 */
async function checkCode(
  ctx: AppContext,
  realm: Realm,
  account: User | Admin,
  stage: string,
  code: string,
  meta: RequestMeta,
): Promise<{ step: number; secret: string }> {
  const now = ctx.clock.now();
  const enrolling = stage === 'totp-enrol';
  // A sign-in waiting for its second factor because the account holds passkeys, but no authenticator
  // app: no code can pass it, so none is counted or checked.
  if (!enrolling && (!account.totpVerified || account.totpSecret === null)) {
    throw new BadRequestError({ code: ErrorCodes.totpNotEnabled });
  }
  let stopsGuessing = false;
  if (!enrolling) {
    const attempt = await beginSecondFactorAttempt(ctx.db, account.userName, now);
    if (!attempt.allowed) throw new TooManyRequestsError({ retryAfterSeconds: attempt.retryAfterMs / 1000 });
    stopsGuessing = attempt.stopsGuessing;
  }
  const table = tableOf(realm);
  const sealed = enrolling ? account.totpPendingSecret : account.totpSecret;
  if (sealed === null) {
    // Enrolment without a generated secret: nothing to check against.
    throw new BadRequestError({ code: ErrorCodes.invalidCode });
  }
  const secret = enrolling
    ? openPendingSecret(ctx.secrets, table, account.id, sealed)
    : openSecret(ctx.secrets, table, account.id, sealed);
  const step = totpStep(secret, code, now);
  const spent = step !== null && isSpentStep(step, account.totpLastStep);
  if (step === null || spent || !(await claimStep(ctx.db, table, account.id, step))) {
    const who = realm === 'user' ? { UserName: account.userName } : { AdminName: account.userName };
    const detail = { ...who, IpAddress: meta.ipAddress };
    await recordAudit(ctx.db, now, AuditActions.TotpFailed, detail);
    if (stopsGuessing) await recordAudit(ctx.db, now, AuditActions.SecondFactorBlocked, detail);
    // A right code that was accepted already (or by a concurrent request just now) is told apart from
    // a wrong one: the person typed what the app shows, and only needs its next code. It counts as a
    // failure all the same, so it tells a guesser nothing a right guess would not.
    throw new BadRequestError({ code: step === null ? ErrorCodes.invalidCode : ErrorCodes.totpCodeUsed });
  }
  return { step, secret };
}

/** The enrolled secret becomes the account's second factor, audited, inside the sign-in's transaction. */
async function confirmEnrolmentIn(
  trx: AppContext['db'],
  ctx: AppContext,
  realm: Realm,
  account: User | Admin,
  proven: { step: number; secret: string },
  now: number,
): Promise<void> {
  await confirmEnrolment(trx, ctx.secrets, tableOf(realm), account.id, proven.secret, proven.step);
  const who = realm === 'user' ? { UserName: account.userName } : { AdminName: account.userName };
  await recordAudit(trx, now, AuditActions.TotpEnrolled, who);
}

function tableOf(realm: Realm): TotpTable {
  return realm === 'user' ? 'users' : 'admins';
}
