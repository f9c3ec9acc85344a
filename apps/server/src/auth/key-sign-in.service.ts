import { AuditActions, ErrorCodes, type UserSessionInfo } from '@postern/protocol';
import type { AppContext, RequestMeta } from '../app-context.js';
import { type ApiError, ForbiddenError, UnauthenticatedError } from '../errors.js';
import { recordAudit } from '../audit/audit.js';
import { readCredentials } from '../apikeys/api-key-auth.js';
import { touchApiKey } from '../apikeys/apikeys.repo.js';
import { type ApiKeyVerdict, verifyUserAuthKey } from '../apikeys/apikeys.service.js';
import { readSetting } from '../settings/settings.js';
import { findUserById, type User } from '../users/users.repo.js';
import { countedSignIn, refuseWhileBlocked } from './login.service.js';
import { userSessionInfo } from './session-info.js';
import { effectiveSessionLimit, startUserSession, type IssuedSession } from './session-issue.js';
import { recordFailure, signInAddressKey, type ThrottleKey } from './throttle.js';

/** A machine signed in: its session (for the cookie) and the answer POST /api/login would give. */
export interface KeySignInOutcome {
  session: IssuedSession;
  info: UserSessionInfo;
}

/**
 * Signs a script or server in with an API key scoped `user.auth:{user ID}` (POST /api/v1/login),
 * giving the key's user a normal session: the same length (the user's Duration), session limit,
 * audit entry and grants as a person's sign-in, so everything after it is the user API.
 *
 * The rules, in order, as for a password: a throttled address is refused before the key is looked
 * at; a missing, malformed, unknown, deleted key or one without the scope all get one answer (401
 * err.unauthorised), so nothing tells a guesser which keys exist. A real key that has expired, or is
 * used from outside its AllowedFrom, says so (only its holder can learn that). Whether the account
 * may sign in (an API-key user, not disabled or past ValidUntil) is said only after the key passed.
 * There is no second factor: the key is the machine's whole credential, which is why only users of
 * AuthType apikey may sign in with one, never a person's account.
 */
export async function signInWithApiKey(
  ctx: AppContext,
  authorization: string | undefined,
  meta: RequestMeta,
): Promise<KeySignInOutcome> {
  return countedSignIn(ctx, { method: 'apikey' }, signIn(ctx, authorization, meta));
}

async function signIn(
  ctx: AppContext,
  authorization: string | undefined,
  meta: RequestMeta,
): Promise<KeySignInOutcome> {
  // A wrong key counts against the address as a wrong password does (there is no account to name).
  const throttle = [signInAddressKey(meta.ipAddress)];
  await refuseWhileBlocked(ctx, throttle);
  const credentials = readCredentials(authorization);
  if (credentials.kind !== 'key') {
    return refuse(ctx, throttle, meta, new UnauthenticatedError({ code: ErrorCodes.unauthorised }), 'no API key sent');
  }
  const { verdict, userId } = await verifyUserAuthKey(ctx, credentials.plaintext, meta.ipAddress);
  const user = userId === null ? null : await findUserById(ctx.db, userId);
  if (!verdict.ok || user === null) {
    const refusal = keyRefusal(verdict);
    return refuse(ctx, throttle, meta, refusal.error, refusal.why);
  }
  if (user.authType !== 'apikey') {
    await auditRefusal(ctx, meta, `API key ${verdict.key.Name}: not an API-key user`, user);
    throw new ForbiddenError({ code: ErrorCodes.apiKeySignInNotAllowed });
  }
  const now = ctx.clock.now();
  if (user.disabled || (user.validUntil !== null && user.validUntil <= now)) {
    await auditRefusal(ctx, meta, `API key ${verdict.key.Name}: account disabled`, user);
    throw new ForbiddenError({ code: ErrorCodes.accountDisabled });
  }
  return startKeySession(ctx, user, verdict.key, meta, now);
}

/**
 * The answer to a key that may not sign in, and why, for the audit. An expired key and one used from
 * outside its AllowedFrom say so; everything else (unknown, deleted, no user scope, a user that no
 * longer exists) is err.unauthorised.
 */
function keyRefusal(verdict: ApiKeyVerdict): { error: ApiError; why: string } {
  if (verdict.ok)
    return {
      error: new UnauthenticatedError({ code: ErrorCodes.unauthorised }),
      why: `API key ${verdict.key.Name}: its user no longer exists`,
    };
  switch (verdict.refusal) {
    case 'unknown':
      return { error: new UnauthenticatedError({ code: ErrorCodes.unauthorised }), why: 'unknown API key' };
    case 'expired':
      return {
        error: new UnauthenticatedError({ code: ErrorCodes.apiKeyExpired }),
        why: `API key ${verdict.key.Name} expired`,
      };
    case 'address':
      return {
        error: new ForbiddenError({ code: ErrorCodes.apiKeyAddressNotAllowed }),
        why: `API key ${verdict.key.Name} not allowed from this address`,
      };
    case 'scope':
      return {
        error: new UnauthenticatedError({ code: ErrorCodes.unauthorised }),
        why: `API key ${verdict.key.Name} does not act as a user`,
      };
  }
}

async function startKeySession(
  ctx: AppContext,
  user: User,
  key: { ID: string; Name: string },
  meta: RequestMeta,
  now: number,
): Promise<KeySignInOutcome> {
  const sessionLimit = await effectiveSessionLimit(ctx, user);
  const newUserDashboard = await readSetting(ctx.db, 'NewUserDashboard');
  const started = await ctx.db.transaction().execute(async (trx) => {
    // No previous token: a machine may hold several sessions (its SessionLimit governs them), and a
    // --persist client signs in its next session before it ends the current one.
    const issued = await startUserSession(trx, {
      user,
      kiosk: false,
      sessionLimit,
      meta,
      now,
      previousToken: undefined,
      signInDescription: `API key ${key.Name}`,
    });
    await touchApiKey(trx, key.ID, now);
    return { ...issued, info: userSessionInfo(user, issued.endsAt, false, newUserDashboard) };
  });
  await ctx.sessionEvents.userSessionsEnded(started.ended);
  return { session: started, info: started.info };
}

/** Counts the failure against the address, audits it (and the block it starts), and throws `error`. */
async function refuse(
  ctx: AppContext,
  throttle: readonly ThrottleKey[],
  meta: RequestMeta,
  error: ApiError,
  why: string,
): Promise<never> {
  const now = ctx.clock.now();
  const outcome = await recordFailure(ctx.db, throttle, now);
  await auditRefusal(ctx, meta, why, null);
  if (outcome.blocked) {
    await recordAudit(ctx.db, now, AuditActions.SignInBlocked, { IpAddress: meta.ipAddress, Description: why });
  }
  throw error;
}

async function auditRefusal(ctx: AppContext, meta: RequestMeta, why: string, user: User | null): Promise<void> {
  await recordAudit(ctx.db, ctx.clock.now(), AuditActions.UserLoginFailed, {
    ...(user === null ? {} : { UserName: user.userName }),
    IpAddress: meta.ipAddress,
    Description: why,
  });
}
