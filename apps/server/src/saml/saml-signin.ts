import { AuditActions, ErrorCodes, type ErrorCode } from '@postern/protocol';
import type { AppContext, RequestMeta } from '../app-context.js';
import { ApiError } from '../errors.js';
import { recordAudit } from '../audit/audit.js';
import { findUserByUserName, insertUser, type User } from '../users/users.repo.js';
import { newFederatedUser, renameFederatedUser } from '../users/federated-users.js';
import { findAdminByUserName } from '../admins/admins.repo.js';
import { assertCanAddUser } from '../licence/licence.js';
import { syncSamlGroupsOfUser } from '../groups/groups.service.js';
import { effectiveSessionLimit, startAdminSession, startUserSession } from '../auth/session-issue.js';
import { isUniqueViolation } from '../lib/unique-violation.js';
import { DIRECTORY } from '../lib/account-provider.js';
import { displayName, groupNames, sessionDurationMinutes } from './saml-attributes.js';
import type { VerifiedAssertion } from './saml-assertion.js';

/**
 * A sign-in we refuse. `code` is what the browser is told (on the login page); `reason` is for the
 * log and the audit entry only.
 */
export class SamlRefusal extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly reason: string,
    /** The account the assertion named, once known. */
    readonly accountName?: string,
  ) {
    super(reason);
    this.name = 'SamlRefusal';
  }
}

/** A session just started by SSO, for the route to put in a cookie. */
export interface SamlSession {
  token: string;
  endsAt: number;
}

/**
 * Signs a user in from a verified assertion whose NameID is their user name. A user that does not
 * exist yet is created (AuthType SAML, within the licence's user limit); an account of another kind
 * with that name is never taken over. Their saml and dynamic group memberships become exactly the
 * assertion's groups. No TOTP: the IdP owns the second factor.
 *
 * sessionDuration: honoured as an upper bound between 1 minute and the user's own Duration, never
 * beyond it. Session length decides how long firewalls stay open, so an attribute (which some IdPs let
 * people edit on their own profile, and which is easily mis-mapped) may shorten access but only
 * Postern's administrators may lengthen it, through the user's Duration. Kiosk sessions keep the kiosk
 * length unless sessionDuration is shorter still.
 */
export async function signInSamlUser(
  ctx: AppContext,
  assertion: VerifiedAssertion,
  options: { kiosk: boolean; meta: RequestMeta; previousToken: string | undefined },
): Promise<SamlSession> {
  const now = ctx.clock.now();
  const userName = assertion.nameId;
  const name = displayName(assertion.attributes, userName);
  // SAML accounts live in Postern's directory, beside local and LDAP ones (lib/account-provider.ts).
  const existing = await findUserByUserName(ctx.db, DIRECTORY, userName);
  if (existing !== null && existing.authType !== 'SAML') {
    throw new SamlRefusal(
      ErrorCodes.authenticationFailed,
      `the account ${userName} is a ${existing.authType} account, not a SAML one; it is not taken over`,
      userName,
    );
  }
  if (existing !== null && (existing.disabled || (existing.validUntil !== null && existing.validUntil <= now))) {
    throw new SamlRefusal(ErrorCodes.accountDisabled, 'the account is disabled or expired', userName);
  }
  const user = existing ?? newFederatedUser('SAML', userName, name, now);
  const groups = groupNames(assertion.attributes);
  if (groups.skipped > 0)
    ctx.logger.warn({ userName, skipped: groups.skipped }, 'SAML groups skipped (too long or too many)');
  const limitMinutes = sessionLimitMinutes(ctx, assertion, user);
  const sessionLimit = await effectiveSessionLimit(ctx, user);

  let started;
  try {
    // Only `trx` inside: SQLite has one connection, and ctx.db would wait for this transaction forever.
    started = await ctx.db.transaction().execute(async (trx) => {
      if (existing === null) {
        await assertCanAddUser(ctx, trx);
        await insertUser(trx, user);
        await recordAudit(trx, now, AuditActions.UserCreatedBySaml, {
          UserName: userName,
          IpAddress: options.meta.ipAddress,
        });
      } else if (existing.name !== name) {
        await renameFederatedUser(trx, existing, name, 'the SAML assertion', now);
      }
      await syncSamlGroupsOfUser(trx, user.id, groups.names, now);
      return startUserSession(trx, {
        user,
        kiosk: options.kiosk,
        sessionLimit,
        maxMinutes: limitMinutes,
        meta: options.meta,
        now,
        previousToken: options.previousToken,
      });
    });
  } catch (error) {
    if (error instanceof ApiError && error.code === ErrorCodes.userLimitReached) {
      throw new SamlRefusal(ErrorCodes.authenticationFailed, 'the licence user limit is reached', userName);
    }
    if (isUniqueViolation(error)) {
      // The same person's first sign-in finishing twice at once; the other one created the account.
      throw new SamlRefusal(ErrorCodes.authenticationFailed, 'the account was created concurrently', userName);
    }
    throw error;
  }
  await ctx.sessionEvents.userSessionsEnded(started.ended);
  return { token: started.token, endsAt: started.endsAt };
}

/**
 * Signs an administrator in. Admins are never created by SSO: the account must exist with AuthType
 * SAML (so a person who merely exists at the IdP, or an IdP account named like a local admin, gets
 * nothing) and LoginEnabled. SAML admins have no TOTP here; the IdP owns the second factor.
 */
export async function signInSamlAdmin(
  ctx: AppContext,
  assertion: VerifiedAssertion,
  options: { meta: RequestMeta; previousToken: string | undefined },
): Promise<SamlSession> {
  const userName = assertion.nameId;
  const admin = await findAdminByUserName(ctx.db, DIRECTORY, userName);
  if (admin === null) {
    throw new SamlRefusal(ErrorCodes.authenticationFailed, 'no admin has this user name', userName);
  }
  if (admin.authType !== 'SAML') {
    throw new SamlRefusal(
      ErrorCodes.authenticationFailed,
      `the admin is a ${admin.authType} account, not SAML`,
      userName,
    );
  }
  if (!admin.loginEnabled)
    throw new SamlRefusal(ErrorCodes.loginNotPermitted, 'login is disabled for the admin', userName);
  const now = ctx.clock.now();
  const session = await ctx.db
    .transaction()
    .execute((trx) =>
      startAdminSession(trx, { admin, stage: 'active', meta: options.meta, now, previousToken: options.previousToken }),
    );
  return { token: session.token, endsAt: session.endsAt };
}

/** The session's length limit in minutes from sessionDuration, capped at the user's Duration. */
function sessionLimitMinutes(ctx: AppContext, assertion: VerifiedAssertion, user: User): number | undefined {
  const requested = sessionDurationMinutes(assertion.attributes);
  if (requested === 'invalid') {
    ctx.logger.warn({ userName: user.userName }, 'SAML sessionDuration is not a whole number of minutes; ignored');
    return undefined;
  }
  return requested === undefined ? undefined : Math.min(requested, user.durationMinutes);
}
