import {
  verifyAuthenticationResponse,
  type AuthenticationResponseJSON,
  type VerifiedAuthenticationResponse,
} from '@simplewebauthn/server';
import {
  AuditActions,
  ErrorCodes,
  PASSKEY_CHANGE_WINDOW_MINUTES,
  type AuthenticationResponseJson,
} from '@postern/protocol';
import type { AppContext, RequestMeta } from '../app-context.js';
import { BadRequestError, ForbiddenError, UnauthenticatedError } from '../errors.js';
import { recordAudit } from '../audit/audit.js';
import type { Ceremony } from './ceremonies.js';
import type { PasskeyRealm, StoredPasskey } from './passkeys.repo.js';

/** An account of either realm, as far as passkeys care. */
export interface PasskeyAccount {
  id: string;
  userName: string;
  name: string;
  authType: string;
  totpEnabled: boolean;
  totpVerified: boolean;
}

/** The audit fields naming an account of `realm`. */
export function who(realm: PasskeyRealm, userName: string): { UserName: string } | { AdminName: string } {
  return realm === 'user' ? { UserName: userName } : { AdminName: userName };
}

/**
 * Passkeys are for the accounts whose factors Postern checks: local and LDAP ones. SAML and OpenID
 * Connect accounts pass their factors at their provider; API-key accounts sign in with their key.
 */
export function assertPasskeysAllowed(account: { authType: string }): void {
  if (account.authType !== 'local' && account.authType !== 'LDAP') {
    throw new ForbiddenError({ code: ErrorCodes.passkeysNotForThisAccount });
  }
}

/**
 * A passkey alone signs in local accounts only. An LDAP account's passkeys are its second factor: the
 * directory owns its password and whether it may still sign in, and a passwordless sign-in would
 * never ask it (an account disabled or removed there would go on signing in).
 */
export function assertPasswordlessAllowed(account: { authType: string }): void {
  assertPasskeysAllowed(account);
  if (account.authType !== 'local') throw new ForbiddenError({ code: ErrorCodes.passkeyOnlySecondFactor });
}

/**
 * Adding or removing a passkey needs a recent sign-in: every session starts at a sign-in that passed
 * all the account's factors, so within the window the person has just proved them; a browser left
 * signed in for hours cannot change what signs the account in.
 */
export function assertRecentSignIn(ctx: AppContext, session: { createdAt: number }): void {
  if (ctx.clock.now() - session.createdAt > PASSKEY_CHANGE_WINDOW_MINUTES * 60_000) {
    throw new ForbiddenError({ code: ErrorCodes.recentSignInRequired });
  }
}

/** 400 err.ceremonyExpired: the challenge is unknown, spent or too old; the browser starts again. */
export function ceremonyExpired(): BadRequestError {
  return new BadRequestError({ code: ErrorCodes.ceremonyExpired });
}

/** 401 err.passkeyVerificationFailed. */
export function verificationFailed(): UnauthenticatedError {
  return new UnauthenticatedError({ code: ErrorCodes.passkeyVerificationFailed });
}

/** What a verified assertion says about the passkey's use. */
export interface PasskeyUse {
  counter: number;
  backedUp: boolean;
}

/**
 * Checks an assertion against the ceremony it answers and the stored passkey: the challenge, the
 * origin and RP ID the options promised (the passkey's own RP ID too), the signature, user presence
 * and verification, then the signature counter. A counter that did not go up (while either is
 * non-zero) may be a cloned authenticator: refused with its own code and audited, naming the passkey.
 */
export async function verifyAssertion(
  ctx: AppContext,
  ceremony: Ceremony,
  passkey: StoredPasskey,
  response: AuthenticationResponseJson,
  audit: { userName: string; meta: RequestMeta },
): Promise<PasskeyUse> {
  if (passkey.rpId !== ceremony.rpId) throw verificationFailed();
  let verified: VerifiedAuthenticationResponse;
  try {
    verified = await verifyAuthenticationResponse({
      // The frame was checked by the route's schema; the library checks every value it reads.
      response: response as unknown as AuthenticationResponseJSON,
      expectedChallenge: ceremony.challenge,
      expectedOrigin: ceremony.origin,
      expectedRPID: ceremony.rpId,
      // The counter is compared below, once the signature is known to be the authenticator's.
      credential: {
        id: passkey.credentialId,
        publicKey: passkey.publicKey,
        counter: 0,
        transports: passkey.transports,
      },
      requireUserVerification: true,
    });
  } catch {
    throw verificationFailed();
  }
  if (!verified.verified || !verified.authenticationInfo.userVerified) throw verificationFailed();
  const counter = verified.authenticationInfo.newCounter;
  if ((counter > 0 || passkey.counter > 0) && counter <= passkey.counter) {
    await recordAudit(ctx.db, ctx.clock.now(), AuditActions.PasskeyCounterRegressed, {
      ...who(passkey.realm, audit.userName),
      IpAddress: audit.meta.ipAddress,
      Description: `${passkey.name}: counter ${counter}, stored ${passkey.counter}`,
    });
    throw new UnauthenticatedError({ code: ErrorCodes.passkeyCounterRegressed });
  }
  return { counter, backedUp: verified.authenticationInfo.credentialBackedUp };
}

/** How a passkey names itself in a sign-in's audit entry. */
export function passkeyDescription(passkey: StoredPasskey): string {
  return `passkey "${passkey.name}"`;
}
