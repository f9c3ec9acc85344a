import { AuditActions, ErrorCodes, type ErrorCode, type OidcRealm } from '@postern/protocol';
import type { AppContext, RequestMeta } from '../app-context.js';
import { ApiError } from '../errors.js';
import { recordAudit } from '../audit/audit.js';
import {
  bindUserExternalIdentity,
  externalIdentityOfUser,
  findUserByUserName,
  insertUser,
  type ExternalIdentity,
} from '../users/users.repo.js';
import { bindAdminExternalIdentity, externalIdentityOfAdmin, findAdminByUserName } from '../admins/admins.repo.js';
import { assertCanAddUser } from '../licence/licence.js';
import { syncSamlGroupsOfUser } from '../groups/groups.service.js';
import { effectiveSessionLimit, startAdminSession, startUserSession } from '../auth/session-issue.js';
import { isUniqueViolation } from '../lib/unique-violation.js';
import { OIDC_PROVIDER } from '../lib/account-provider.js';
import { newFederatedUser, renameFederatedUser } from '../users/federated-users.js';

/**
 * A sign-in we refuse. `code` is what the browser is told (on the login page); `reason` is for the
 * log and the audit entry only.
 */
export class OidcRefusal extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly reason: string,
    /** The account the sign-in named, once known. */
    readonly accountName?: string,
  ) {
    super(reason);
    this.name = 'OidcRefusal';
  }
}

/** Who the provider says signed in, once every check of the response passed. */
export interface OidcIdentity {
  realm: OidcRealm;
  /** The provider's `iss` and `sub`: the only stable identifier of the person there. */
  external: ExternalIdentity;
  userName: string;
  displayName: string;
  /** The group names to map, or null when the realm maps none (memberships are then left alone). */
  groups: string[] | null;
  /** For the audit entries: `OpenID Connect: <provider>`. */
  description: string;
}

/** A session just started, for the route to put in a cookie, and for the RP-initiated logout URL. */
export interface OidcSession {
  sessionId: string;
  token: string;
  endsAt: number;
}

/**
 * Signs a user in. The account is the OpenID Connect account of that user name (lib/account-provider.ts:
 * a local, LDAP or SAML account of the same name is another one and is never reached); one that does not
 * exist yet is created, within the licence's user limit, like a SAML user. An account is bound to the
 * provider's `iss` and `sub` at its first sign-in and refused to anyone else afterwards, so a user name
 * the provider gives to another person later does not hand them the account. Groups from the claim
 * become exactly the user's saml and dynamic memberships, as SAML groups do. No TOTP: the provider owns
 * the second factor.
 */
export async function signInOidcUser(
  ctx: AppContext,
  identity: OidcIdentity,
  options: { kiosk: boolean; meta: RequestMeta; previousToken: string | undefined },
): Promise<OidcSession> {
  const now = ctx.clock.now();
  const { userName } = identity;
  const existing = await findUserByUserName(ctx.db, OIDC_PROVIDER, userName);
  if (existing !== null) {
    await refuseOtherIdentity(await externalIdentityOfUser(ctx.db, existing.id), identity);
    if (existing.disabled || (existing.validUntil !== null && existing.validUntil <= now)) {
      throw new OidcRefusal(ErrorCodes.accountDisabled, 'the account is disabled or expired', userName);
    }
  }
  const user = existing ?? newFederatedUser('oidc', userName, identity.displayName, now);
  const sessionLimit = await effectiveSessionLimit(ctx, user);

  let started;
  try {
    // Only `trx` inside: SQLite has one connection, and ctx.db would wait for this transaction forever.
    started = await ctx.db.transaction().execute(async (trx) => {
      if (existing === null) {
        await assertCanAddUser(ctx, trx);
        await insertUser(trx, user);
        await recordAudit(trx, now, AuditActions.UserCreatedByOidc, {
          UserName: userName,
          IpAddress: options.meta.ipAddress,
          Description: identity.description,
        });
      } else if (existing.name !== identity.displayName) {
        await renameFederatedUser(trx, existing, identity.displayName, identity.description, now);
      }
      if (!(await bindUserExternalIdentity(trx, user.id, identity.external))) {
        await refuseOtherIdentity(await externalIdentityOfUser(trx, user.id), identity);
      }
      if (identity.groups !== null) await syncSamlGroupsOfUser(trx, user.id, identity.groups, now);
      return startUserSession(trx, {
        user,
        kiosk: options.kiosk,
        sessionLimit,
        meta: options.meta,
        now,
        previousToken: options.previousToken,
        signInDescription: identity.description,
      });
    });
  } catch (error) {
    if (error instanceof ApiError && error.code === ErrorCodes.userLimitReached) {
      throw new OidcRefusal(ErrorCodes.authenticationFailed, 'the licence user limit is reached', userName);
    }
    if (isUniqueViolation(error)) {
      // The same person's first sign-in finishing twice at once; the other one created the account.
      throw new OidcRefusal(ErrorCodes.authenticationFailed, 'the account was created concurrently', userName);
    }
    throw error;
  }
  await ctx.sessionEvents.userSessionsEnded(started.ended);
  return { sessionId: started.sessionId, token: started.token, endsAt: started.endsAt };
}

/**
 * Signs an administrator in through the admins' provider. Admins are never created by a sign-in
 * (as with SAML): the account must exist as an OpenID Connect admin of that user name (so a person who
 * merely exists at the provider, or one named like a local admin, gets nothing) with LoginEnabled, and
 * is bound to the provider's `iss` and `sub` at its first sign-in as users are. No TOTP here.
 */
export async function signInOidcAdmin(
  ctx: AppContext,
  identity: OidcIdentity,
  options: { meta: RequestMeta; previousToken: string | undefined },
): Promise<OidcSession> {
  const { userName } = identity;
  const admin = await findAdminByUserName(ctx.db, OIDC_PROVIDER, userName);
  if (admin === null) {
    throw new OidcRefusal(ErrorCodes.authenticationFailed, 'no OpenID Connect admin has this user name', userName);
  }
  await refuseOtherIdentity(await externalIdentityOfAdmin(ctx.db, admin.id), identity);
  if (!admin.loginEnabled) {
    throw new OidcRefusal(ErrorCodes.loginNotPermitted, 'login is disabled for the admin', userName);
  }
  const now = ctx.clock.now();
  const session = await ctx.db.transaction().execute(async (trx) => {
    if (!(await bindAdminExternalIdentity(trx, admin.id, identity.external))) {
      await refuseOtherIdentity(await externalIdentityOfAdmin(trx, admin.id), identity);
    }
    return startAdminSession(trx, {
      admin,
      stage: 'active',
      meta: options.meta,
      now,
      previousToken: options.previousToken,
      signInDescription: identity.description,
    });
  });
  return { sessionId: session.sessionId, token: session.token, endsAt: session.endsAt };
}

/** Refuses a sign-in whose provider identity is not the one the account is bound to. */
function refuseOtherIdentity(bound: ExternalIdentity | null, identity: OidcIdentity): Promise<void> {
  if (bound === null || (bound.issuer === identity.external.issuer && bound.subject === identity.external.subject)) {
    return Promise.resolve();
  }
  return Promise.reject(
    new OidcRefusal(
      ErrorCodes.authenticationFailed,
      `the account is bound to another identity (sub ${JSON.stringify(bound.subject)} at ${bound.issuer}, ` +
        `not ${JSON.stringify(identity.external.subject)} at ${identity.external.issuer}); ` +
        'an administrator must delete it before another person of this name can sign in',
      identity.userName,
    ),
  );
}
