import {
  generateRegistrationOptions,
  verifyRegistrationResponse,
  type RegistrationResponseJSON,
  type VerifiedRegistrationResponse,
} from '@simplewebauthn/server';
import {
  AuditActions,
  ErrorCodes,
  MAX_PASSKEYS_PER_ACCOUNT,
  WEBAUTHN_CEREMONY_MS,
  type Passkey,
  type RegistrationVerifyBody,
} from '@postern/protocol';
import type { AppContext, RequestMeta } from '../app-context.js';
import { BadRequestError, ConflictError } from '../errors.js';
import { recordAudit } from '../audit/audit.js';
import type { User } from '../users/users.repo.js';
import type { Admin } from '../admins/admins.repo.js';
import type { AdminSession, UserSession } from '../sessions/sessions.repo.js';
import type { IssuedSession } from '../auth/session-issue.js';
import { finishAdminSignIn, finishUserSignIn } from '../auth/second-factor.service.js';
import { uuidv7 } from '../lib/ids.js';
import { isUniqueViolation } from '../lib/unique-violation.js';
import { relyingParty, type RequestAddress } from './relying-party.js';
import { saveCeremony, takeCeremony } from './ceremonies.js';
import {
  assertPasskeysAllowed,
  assertRecentSignIn,
  ceremonyExpired,
  verificationFailed,
  who,
} from './passkey-checks.js';
import {
  countPasskeys,
  findPasskeyByCredentialId,
  insertPasskey,
  passkeyRecord,
  passkeysOf,
  type StoredPasskey,
} from './passkeys.repo.js';

/** The session asking to add a passkey, with its account. */
export type PasskeyCaller =
  { realm: 'user'; account: User; session: UserSession } | { realm: 'admin'; account: Admin; session: AdminSession };

/** What a registration did, and the full session to set when it finished a sign-in. */
export interface Registered {
  outcome: 'Enrolled' | 'Added';
  passkey: Passkey;
  /** Set when the registration finished a pending sign-in: the cookie is replaced by this session. */
  session: IssuedSession | null;
  /** The finished user sign-in was a kiosk one (its cookie ends with the browser). */
  kiosk: boolean;
}

/** How the browser's passkey prompt names the relying party. */
const RP_NAME = 'Postern';

/**
 * Who may add a passkey: a sign-in waiting to enrol its second factor (the passkey becomes it), or a
 * signed-in session within the recent sign-in window. A sign-in waiting to verify a factor it has
 * may not add another before passing it.
 */
function assertMayRegister(ctx: AppContext, caller: PasskeyCaller): void {
  assertPasskeysAllowed(caller.account);
  if (caller.session.stage === 'totp') throw new BadRequestError({ code: ErrorCodes.alreadyVerified2fa });
  if (caller.session.stage === 'active') assertRecentSignIn(ctx, caller.session);
}

/** POST …/webauthn/registration/options */
export async function registrationOptions(
  ctx: AppContext,
  caller: PasskeyCaller,
  address: RequestAddress,
): Promise<Record<string, unknown>> {
  assertMayRegister(ctx, caller);
  const existing = await passkeysOf(ctx.db, caller.realm, caller.account.id);
  if (existing.length >= MAX_PASSKEYS_PER_ACCOUNT) throw new ConflictError({ code: ErrorCodes.passkeyLimitReached });
  const rp = await relyingParty(ctx, address);
  const { account } = caller;
  const options = await generateRegistrationOptions({
    rpName: RP_NAME,
    rpID: rp.rpId,
    userName: account.userName,
    // The account's ID, never its name: a passwordless sign-in's user handle names the account.
    userID: new TextEncoder().encode(account.id),
    // The authenticator's list tells an administrator's passkey from the same person's user one.
    userDisplayName: caller.realm === 'admin' ? `${account.name} (administrator)` : account.name,
    timeout: WEBAUTHN_CEREMONY_MS,
    attestationType: 'none',
    excludeCredentials: existing.map((passkey) => ({ id: passkey.credentialId, transports: passkey.transports })),
    // A security key without room for resident credentials can still be a second factor.
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
    extensions: { credProps: true },
  });
  await saveCeremony(
    ctx.db,
    {
      realm: caller.realm,
      purpose: 'register',
      sessionId: caller.session.id,
      accountId: account.id,
      challenge: options.challenge,
      rpId: rp.rpId,
      origin: rp.origin,
    },
    ctx.clock.now(),
  );
  return options as unknown as Record<string, unknown>;
}

/**
 * POST …/webauthn/registration/verify: checks the new credential against the ceremony (challenge,
 * origin, RP ID, user presence and verification) and stores it. A sign-in waiting to enrol is then
 * finished, as a TOTP enrolment finishes it: the new passkey was just used, with user verification.
 */
export async function verifyRegistration(
  ctx: AppContext,
  caller: PasskeyCaller,
  body: RegistrationVerifyBody,
  meta: RequestMeta,
): Promise<Registered> {
  assertMayRegister(ctx, caller);
  const { realm, account, session } = caller;
  const now = ctx.clock.now();
  const ceremony = await takeCeremony(ctx.db, { realm, purpose: 'register', sessionId: session.id }, now);
  if (ceremony === null || ceremony.accountId !== account.id) throw ceremonyExpired();
  let verified: VerifiedRegistrationResponse;
  try {
    verified = await verifyRegistrationResponse({
      // The frame was checked by the route's schema; the library checks every value it reads.
      response: body.Response as unknown as RegistrationResponseJSON,
      expectedChallenge: ceremony.challenge,
      expectedOrigin: ceremony.origin,
      expectedRPID: ceremony.rpId,
      requireUserPresence: true,
      requireUserVerification: true,
    });
  } catch {
    throw verificationFailed();
  }
  if (!verified.verified || !verified.registrationInfo.userVerified) throw verificationFailed();
  const info = verified.registrationInfo;
  if ((await countPasskeys(ctx.db, realm, account.id)) >= MAX_PASSKEYS_PER_ACCOUNT) {
    throw new ConflictError({ code: ErrorCodes.passkeyLimitReached });
  }
  if ((await findPasskeyByCredentialId(ctx.db, realm, info.credential.id)) !== null) {
    throw new ConflictError({ code: ErrorCodes.passkeyAlreadyRegistered });
  }
  const passkey: StoredPasskey = {
    id: uuidv7(now),
    realm,
    accountId: account.id,
    credentialId: info.credential.id,
    publicKey: Uint8Array.from(info.credential.publicKey),
    counter: info.credential.counter,
    transports: body.Response.response.transports ?? [],
    name: body.Name,
    rpId: ceremony.rpId,
    backedUp: info.credentialBackedUp,
    discoverable: discoverable(body.Response.clientExtensionResults),
    createdAt: now,
    lastUsedAt: null,
  };
  const store = async (trx: AppContext['db']) => {
    await insertPasskey(trx, passkey);
    await recordAudit(trx, now, AuditActions.PasskeyAdded, {
      ...who(realm, account.userName),
      IpAddress: meta.ipAddress,
      Description: passkey.name,
    });
  };
  try {
    return await storeAndFinish(ctx, caller, passkey, store, meta);
  } catch (error) {
    // Registered by a concurrent request in the meantime.
    if (isUniqueViolation(error)) throw new ConflictError({ code: ErrorCodes.passkeyAlreadyRegistered });
    throw error;
  }
}

async function storeAndFinish(
  ctx: AppContext,
  caller: PasskeyCaller,
  passkey: StoredPasskey,
  store: (trx: AppContext['db']) => Promise<void>,
  meta: RequestMeta,
): Promise<Registered> {
  const record = passkeyRecord(passkey);
  if (caller.session.stage === 'active') {
    await ctx.db.transaction().execute(store);
    return { outcome: 'Added', passkey: record, session: null, kiosk: false };
  }
  const signInDescription = `passkey "${passkey.name}" enrolled`;
  if (caller.realm === 'user') {
    const finished = await finishUserSignIn(ctx, caller.account, caller.session, meta, {
      before: store,
      signInDescription,
    });
    return { outcome: 'Enrolled', passkey: record, session: finished.session, kiosk: caller.session.kiosk };
  }
  const session = await finishAdminSignIn(ctx, caller.account, caller.session.id, meta, {
    before: store,
    signInDescription,
  });
  return { outcome: 'Enrolled', passkey: record, session, kiosk: false };
}

/** Whether the browser said the credential is discoverable (credProps); unknown counts as not. */
function discoverable(extensions: Record<string, unknown>): boolean {
  const credProps = extensions.credProps;
  return typeof credProps === 'object' && credProps !== null && (credProps as { rk?: unknown }).rk === true;
}
