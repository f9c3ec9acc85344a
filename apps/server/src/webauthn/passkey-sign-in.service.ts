import { generateAuthenticationOptions } from '@simplewebauthn/server';
import {
  AuditActions,
  ErrorCodes,
  WEBAUTHN_CEREMONY_MS,
  type AdminPasswordlessVerifyBody,
  type AdminSessionInfo,
  type AuthenticationVerifyBody,
  type PasswordlessOptions,
  type PasswordlessVerifyBody,
  type UserSessionInfo,
} from '@postern/protocol';
import type { AppContext, RequestMeta } from '../app-context.js';
import { ApiError, BadRequestError, ConflictError, ForbiddenError, TooManyRequestsError } from '../errors.js';
import { recordAudit } from '../audit/audit.js';
import { readSetting } from '../settings/settings.js';
import { findUserById } from '../users/users.repo.js';
import { findAdminById } from '../admins/admins.repo.js';
import type { IssuedSession } from '../auth/session-issue.js';
import { finishAdminSignIn, finishUserSignIn } from '../auth/second-factor.service.js';
import { adminSessionInfo } from '../auth/session-info.js';
import { assertUserMaySignIn, countedSignIn, startAdminSignIn, startFullUserSession } from '../auth/login.service.js';
import { beginSecondFactorAttempt } from '../sessions/second-factor-throttle.js';
import { relyingParty, type RequestAddress } from './relying-party.js';
import { saveCeremony, takeCeremony } from './ceremonies.js';
import {
  assertPasswordlessAllowed,
  ceremonyExpired,
  passkeyDescription,
  verificationFailed,
  verifyAssertion,
  who,
  type PasskeyUse,
} from './passkey-checks.js';
import {
  findPasskeyByCredentialId,
  passkeysOf,
  recordPasskeyUse,
  type PasskeyRealm,
  type StoredPasskey,
} from './passkeys.repo.js';
import type { PasskeyCaller } from './registration.service.js';

/** A passkey sign-in that finished: the session for the cookie and the answer. */
export interface PasskeySignedIn<Info> {
  session: IssuedSession;
  info: Info;
  /** A user's kiosk sign-in: its cookie ends with the browser. */
  kiosk: boolean;
}

/** The sign-in waiting for its second factor behind the caller; a finished one has nothing to verify. */
function assertWaitingForSecondFactor(caller: PasskeyCaller): void {
  if (caller.session.stage === 'active') throw new BadRequestError({ code: ErrorCodes.userAlreadyVerified });
  // A sign-in enrolling its second factor had no passkey when it started.
  if (caller.session.stage !== 'totp') throw new ConflictError({ code: ErrorCodes.noPasskeys });
}

/** POST …/webauthn/authentication/options: a challenge for one of the account's passkeys. */
export async function secondFactorOptions(
  ctx: AppContext,
  caller: PasskeyCaller,
  address: RequestAddress,
): Promise<Record<string, unknown>> {
  assertWaitingForSecondFactor(caller);
  const rp = await relyingParty(ctx, address);
  // A passkey made for another RP ID cannot answer here; the browser need not be offered it.
  const usable = (await passkeysOf(ctx.db, caller.realm, caller.account.id)).filter((p) => p.rpId === rp.rpId);
  if (usable.length === 0) throw new ConflictError({ code: ErrorCodes.noPasskeys });
  const options = await generateAuthenticationOptions({
    rpID: rp.rpId,
    allowCredentials: usable.map((passkey) => ({ id: passkey.credentialId, transports: passkey.transports })),
    userVerification: 'required',
    timeout: WEBAUTHN_CEREMONY_MS,
  });
  await saveCeremony(
    ctx.db,
    {
      realm: caller.realm,
      purpose: 'second-factor',
      sessionId: caller.session.id,
      accountId: caller.account.id,
      challenge: options.challenge,
      rpId: rp.rpId,
      origin: rp.origin,
    },
    ctx.clock.now(),
  );
  return options as unknown as Record<string, unknown>;
}

/**
 * POST …/webauthn/authentication/verify: the second factor by passkey. It counts on the account's
 * second-factor counter as a TOTP code does (second-factor-throttle.ts), and finishes the sign-in
 * as a code does: the pending session ends and a full one starts.
 */
export async function verifySecondFactor(
  ctx: AppContext,
  caller: PasskeyCaller,
  body: AuthenticationVerifyBody,
  meta: RequestMeta,
): Promise<PasskeySignedIn<UserSessionInfo | AdminSessionInfo>> {
  assertWaitingForSecondFactor(caller);
  const { realm, account, session } = caller;
  const now = ctx.clock.now();
  const ceremony = await takeCeremony(ctx.db, { realm, purpose: 'second-factor', sessionId: session.id }, now);
  if (ceremony === null || ceremony.accountId !== account.id) throw ceremonyExpired();
  const attempt = await beginSecondFactorAttempt(ctx.db, account.userName, now);
  if (!attempt.allowed) throw new TooManyRequestsError({ retryAfterSeconds: attempt.retryAfterMs / 1000 });
  const audit = { realm, userName: account.userName, meta, description: 'passkey as the second factor refused' };
  const { passkey, use } = await refusalsAudited(ctx, audit, async () => {
    const found = await findPasskeyByCredentialId(ctx.db, realm, body.Response.id);
    // Another account's passkey proves nothing about this one.
    if (found === null || found.accountId !== account.id) throw verificationFailed();
    return { passkey: found, use: await verifyAssertion(ctx, ceremony, found, body.Response, audit) };
  }).catch(async (error: unknown) => {
    if (attempt.stopsGuessing) {
      await recordAudit(ctx.db, now, AuditActions.SecondFactorBlocked, {
        ...who(realm, account.userName),
        IpAddress: meta.ipAddress,
      });
    }
    throw error;
  });
  const options = {
    before: (trx: AppContext['db']) => recordUse(trx, passkey, use, now),
    signInDescription: passkeyDescription(passkey),
  };
  if (caller.realm === 'user') {
    const finished = await finishUserSignIn(ctx, caller.account, caller.session, meta, options);
    return { ...finished, kiosk: caller.session.kiosk };
  }
  const started = await finishAdminSignIn(ctx, caller.account, caller.session.id, meta, options);
  return { session: started, info: adminSessionInfo(caller.account, true), kiosk: false };
}

/** The realm's setting that lets a passkey alone sign in: 403 err.passkeySignInDisabled while it is off. */
async function assertPasswordlessOn(ctx: AppContext, realm: PasskeyRealm): Promise<void> {
  const on = await readSetting(ctx.db, realm === 'user' ? 'UserPasskeySignIn' : 'AdminPasskeySignIn');
  if (!on) throw new ForbiddenError({ code: ErrorCodes.passkeySignInDisabled });
}

/** POST …/webauthn/passwordless/options (public): a challenge for any discoverable passkey of the realm. */
export async function passwordlessOptions(
  ctx: AppContext,
  realm: PasskeyRealm,
  address: RequestAddress,
): Promise<PasswordlessOptions> {
  await assertPasswordlessOn(ctx, realm);
  const rp = await relyingParty(ctx, address);
  const options = await generateAuthenticationOptions({
    rpID: rp.rpId,
    userVerification: 'required',
    timeout: WEBAUTHN_CEREMONY_MS,
  });
  const handle = await saveCeremony(
    ctx.db,
    {
      realm,
      purpose: 'passwordless',
      sessionId: null,
      accountId: null,
      challenge: options.challenge,
      rpId: rp.rpId,
      origin: rp.origin,
    },
    ctx.clock.now(),
  );
  return { CeremonyID: handle, Options: options as unknown as Record<string, unknown> };
}

/**
 * The passkey a passwordless answer signs in with, checked: the ceremony is taken (once), the
 * credential is the realm's and its user handle names the passkey's own account, and the assertion
 * verifies (with user verification, which makes the passkey both factors).
 */
async function provenPasskey<Account extends { userName: string }>(
  ctx: AppContext,
  realm: PasskeyRealm,
  body: AdminPasswordlessVerifyBody,
  meta: RequestMeta,
  load: (accountId: string) => Promise<Account | null>,
): Promise<{ passkey: StoredPasskey; use: PasskeyUse; account: Account }> {
  await assertPasswordlessOn(ctx, realm);
  const now = ctx.clock.now();
  const ceremony = await takeCeremony(ctx.db, { realm, purpose: 'passwordless', handle: body.CeremonyID }, now);
  if (ceremony === null) throw ceremonyExpired();
  const passkey = await findPasskeyByCredentialId(ctx.db, realm, body.Response.id);
  const account = passkey === null ? null : await load(passkey.accountId);
  const audit = { realm, userName: account?.userName ?? '', meta, description: 'passkey sign-in refused' };
  return refusalsAudited(ctx, audit, async () => {
    if (passkey === null || account === null) throw verificationFailed();
    if (userHandleOf(body) !== passkey.accountId) throw verificationFailed();
    return { passkey, use: await verifyAssertion(ctx, ceremony, passkey, body.Response, audit), account };
  });
}

/** POST /api/webauthn/passwordless/verify: signs the passkey's owner in, as POST /api/login does. */
export function passwordlessUserSignIn(
  ctx: AppContext,
  body: PasswordlessVerifyBody,
  meta: RequestMeta,
  previousToken: string | undefined,
): Promise<PasskeySignedIn<UserSessionInfo>> {
  return countedSignIn(
    ctx,
    { method: 'passkey' },
    (async () => {
      const proven = await provenPasskey(ctx, 'user', body, meta, (id) => findUserById(ctx.db, id));
      const { passkey, use, account: user } = proven;
      // Said only now that the passkey proved the person, as the password path says it.
      assertPasswordlessAllowed(user);
      const now = ctx.clock.now();
      assertUserMaySignIn(user, now);
      await recordUse(ctx.db, passkey, use, now);
      const started = await startFullUserSession(
        ctx,
        user,
        body.KioskMode,
        meta,
        previousToken,
        passkeyDescription(passkey),
      );
      return { session: started, info: started.info, kiosk: body.KioskMode };
    })(),
  );
}

/** POST /api/admin/webauthn/passwordless/verify */
export function passwordlessAdminSignIn(
  ctx: AppContext,
  body: AdminPasswordlessVerifyBody,
  meta: RequestMeta,
  previousToken: string | undefined,
): Promise<PasskeySignedIn<AdminSessionInfo>> {
  return countedSignIn(
    ctx,
    { method: 'passkey' },
    (async () => {
      const proven = await provenPasskey(ctx, 'admin', body, meta, (id) => findAdminById(ctx.db, id));
      const { passkey, use, account: admin } = proven;
      assertPasswordlessAllowed(admin);
      // Login permission is checked by startAdminSignIn, after the use is recorded: the passkey did sign.
      await recordUse(ctx.db, passkey, use, ctx.clock.now());
      const signedIn = await startAdminSignIn(ctx, admin, meta, previousToken, {
        signInDescription: passkeyDescription(passkey),
      });
      return { ...signedIn, kiosk: false };
    })(),
  );
}

/** The user handle of an assertion as text (the account ID registration put there), or null. */
function userHandleOf(body: AdminPasswordlessVerifyBody): string | null {
  const handle = body.Response.response.userHandle;
  return handle === undefined || handle === '' ? null : Buffer.from(handle, 'base64url').toString('utf8');
}

/**
 * Records the passkey's use; refused (401) when another answer moved its counter since it was read
 * (two uses racing on two replicas: one of them is a copy's).
 */
async function recordUse(db: AppContext['db'], passkey: StoredPasskey, use: PasskeyUse, now: number): Promise<void> {
  if (!(await recordPasskeyUse(db, passkey, { ...use, now }))) throw verificationFailed();
}

/**
 * Runs a passkey check, auditing a failed verification as the failed sign-in it was (a regressed
 * counter has its own entry, written where it is found).
 */
async function refusalsAudited<T>(
  ctx: AppContext,
  audit: { realm: PasskeyRealm; userName: string; meta: RequestMeta; description: string },
  check: () => Promise<T>,
): Promise<T> {
  try {
    return await check();
  } catch (error) {
    if (error instanceof ApiError && error.code === ErrorCodes.passkeyVerificationFailed) {
      const action = audit.realm === 'user' ? AuditActions.UserLoginFailed : AuditActions.AdminLoginFailed;
      await recordAudit(ctx.db, ctx.clock.now(), action, {
        ...(audit.userName === '' ? {} : who(audit.realm, audit.userName)),
        IpAddress: audit.meta.ipAddress,
        Description: audit.description,
      });
    }
    throw error;
  }
}
