import { endGrantsWithoutAccess } from '../grants/access-changes.js';
import {
  AuditActions,
  ErrorCodes,
  type GroupRecord,
  type UserCreateBody,
  type UserRecord,
  type UserUpdateBody,
} from '@postern/protocol';
import type { Kysely } from 'kysely';
import type { AppContext } from '../app-context.js';
import type { Database } from '../store/schema.js';
import type { Admin } from '../admins/admins.repo.js';
import { BadRequestError, ConflictError, NotFoundError } from '../errors.js';
import { recordAudit } from '../audit/audit.js';
import { hashPassword } from '../lib/passwords.js';
import { resetTotp } from '../sessions/totp-store.js';
import { clearSecondFactorFailures } from '../sessions/second-factor-throttle.js';
import { endUserSessions, usersWithActiveSessions } from '../sessions/sessions.repo.js';
import type { EndedUserSession } from '../sessions/session-events.js';
import { assertCanAddUser, maxSessionLimit, usersAreLicensed } from '../licence/licence.js';
import { createApiKey } from '../apikeys/apikeys.service.js';
import { aclIdsGrantedToUser, groupIdsOfUser, listGroups } from '../groups/groups.service.js';
import { uuidv7 } from '../lib/ids.js';
import { isUniqueViolation } from '../lib/unique-violation.js';
import { toUserRecord } from './user-record.js';
import {
  deleteUser as deleteUserRow,
  directAclIds,
  findUserById,
  insertUser,
  listUsers as listUserRows,
  setDirectAclIds,
  updateUser as updateUserRow,
  type User,
} from './users.repo.js';

/** An ACL a user holds, for the user's detail dialog. */
export interface UserAcl {
  ID: string;
  Description: string;
}

export async function listUsers(ctx: AppContext): Promise<UserRecord[]> {
  const [users, acls, active, licensed] = await Promise.all([
    listUserRows(ctx.db),
    directAclIds(ctx.db),
    usersWithActiveSessions(ctx.db, ctx.clock.now()),
    usersAreLicensed(ctx),
  ]);
  return users.map((user) =>
    toUserRecord(user, { aclIds: acls.get(user.id) ?? [], licensed, activeSession: active.has(user.id) }),
  );
}

export async function getUser(ctx: AppContext, id: string): Promise<UserRecord> {
  const user = await existingUser(ctx, id);
  return recordOf(ctx, user);
}

/**
 * Creates a user, and for AuthType apikey optionally a key scoped user.auth:{the user}, in one
 * transaction. Refused at the licence's user limit (err.userLimitReached).
 */
export async function createUser(
  ctx: AppContext,
  actor: Admin,
  body: UserCreateBody,
): Promise<{ User: UserRecord; PlaintextKey: string | null }> {
  await checkSessionLimit(ctx, body.SessionLimit);
  const passwordHash = body.AuthType === 'local' ? await hashPassword(body.PlainPassword ?? '') : null;
  const now = ctx.clock.now();
  const user: User = {
    id: uuidv7(now),
    name: body.Name,
    userName: body.UserName,
    company: body.Company,
    authType: body.AuthType,
    passwordHash,
    ldapDn: body.AuthType === 'LDAP' ? (body.ThirdPartyAuth?.DN ?? null) : null,
    durationMinutes: body.Duration,
    sessionLimit: body.SessionLimit,
    // SAML accounts get their second factor from the IdP; API-key accounts never sign in interactively.
    totpEnabled: body.TOTPEnabled && (body.AuthType === 'local' || body.AuthType === 'LDAP'),
    totpVerified: false,
    totpSecret: null,
    totpPendingSecret: null,
    totpLastStep: null,
    disabled: body.Disabled,
    validUntil: body.ValidUntil === null ? null : Date.parse(body.ValidUntil),
    createdAt: now,
    lastLogin: null,
    language: null,
  };
  try {
    const plaintext = await ctx.db.transaction().execute(async (trx) => {
      await assertCanAddUser(ctx, trx);
      await insertUser(trx, user);
      await recordAudit(trx, now, AuditActions.UserCreated, { AdminName: actor.userName, UserName: user.userName });
      if (body.AuthType !== 'apikey' || body.ApiKey === undefined) return null;
      const key = await createApiKey(
        trx,
        ctx,
        { Name: body.ApiKey.Name, Scopes: [`user.auth:${user.id}`], ExpiredAfter: body.ApiKey.ExpiredAfter },
        { AdminName: actor.userName },
      );
      return key.plaintext;
    });
    return { User: await recordOf(ctx, user), PlaintextKey: plaintext };
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError({ code: ErrorCodes.userNameExists, extra: 'UserName' });
    throw error;
  }
}

/**
 * Updates a user. The user name, the kind of account and (for accounts that do not sign in with a
 * password here) the password cannot change; SAML users belong to their IdP and cannot be edited.
 * A new password, disabling or an expiry in the past ends the user's sessions.
 */
export async function updateUser(ctx: AppContext, actor: Admin, id: string, body: UserUpdateBody): Promise<UserRecord> {
  if (body.ID !== id) throw new BadRequestError({ code: ErrorCodes.mismatchingIds });
  const existing = await existingUser(ctx, id);
  const newPassword = body.PlainPassword ?? '';
  if (
    existing.authType === 'SAML' ||
    body.UserName !== existing.userName ||
    body.AuthType !== existing.authType ||
    (newPassword !== '' && existing.authType !== 'local')
  ) {
    throw new BadRequestError({ code: ErrorCodes.cannotChangeIdentity });
  }
  await checkSessionLimit(ctx, body.SessionLimit);
  await checkAclIds(ctx.db, body.AclIds);
  const passwordHash = newPassword === '' ? undefined : await hashPassword(newPassword);
  const now = ctx.clock.now();
  const validUntil = body.ValidUntil === null ? null : Date.parse(body.ValidUntil);
  const mustEndSessions = passwordHash !== undefined || body.Disabled || (validUntil !== null && validUntil <= now);

  const { ended, lostEntries } = await ctx.db.transaction().execute(async (trx) => {
    await updateUserRow(
      trx,
      id,
      {
        name: body.Name,
        company: body.Company,
        durationMinutes: body.Duration,
        sessionLimit: body.SessionLimit,
        totpEnabled: body.TOTPEnabled && (existing.authType === 'local' || existing.authType === 'LDAP'),
        disabled: body.Disabled,
        validUntil,
        ldapDn: existing.authType === 'LDAP' ? (body.ThirdPartyAuth?.DN ?? existing.ldapDn) : null,
        ...(passwordHash === undefined ? {} : { passwordHash }),
      },
      now,
    );
    await setDirectAclIds(trx, id, body.AclIds);
    await recordAudit(trx, now, AuditActions.UserUpdated, { AdminName: actor.userName, UserName: existing.userName });
    return {
      ended: mustEndSessions ? await endUserSessions(trx, { userId: id }, 'account-changed', now) : [],
      // Knocs taken off the user close at once, not when the session ends.
      lostEntries: await endGrantsWithoutAccess(trx, [id], now),
    };
  });
  ctx.agentSync.entriesChanged(lostEntries);
  await ctx.sessionEvents.userSessionsEnded(ended);
  return getUser(ctx, id);
}

/** Deletes a user; their sessions end first, so their grants are revoked. */
export async function deleteUser(ctx: AppContext, actor: Admin, id: string): Promise<void> {
  const user = await existingUser(ctx, id);
  const now = ctx.clock.now();
  const ended: EndedUserSession[] = await ctx.db.transaction().execute(async (trx) => {
    const endedNow = await endUserSessions(trx, { userId: id }, 'account-deleted', now);
    await deleteUserRow(trx, id);
    await recordAudit(trx, now, AuditActions.UserDeleted, { AdminName: actor.userName, UserName: user.userName });
    return endedNow;
  });
  await ctx.sessionEvents.userSessionsEnded(ended);
}

/** DELETE /api/admin/users/{id}/totpToken: the user must set up an authenticator at the next sign-in. */
export async function resetUserTotp(ctx: AppContext, actor: Admin, id: string): Promise<void> {
  const user = await existingUser(ctx, id);
  if (!user.totpEnabled) throw new BadRequestError({ code: ErrorCodes.totpNotEnabled });
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    await resetTotp(trx, 'users', id, now);
    // A new enrolment starts with a clean slate, also for an account whose guessing had stopped.
    await clearSecondFactorFailures(trx, user.userName);
    await recordAudit(trx, now, AuditActions.UserTotpReset, { AdminName: actor.userName, UserName: user.userName });
  });
}

/** The groups a user belongs to. */
export async function groupsOfUser(ctx: AppContext, id: string): Promise<GroupRecord[]> {
  await existingUser(ctx, id);
  const ids = new Set(await groupIdsOfUser(ctx.db, id));
  return (await listGroups(ctx)).filter((group) => ids.has(group.ID));
}

/** Every ACL a user holds, directly or through a group. */
export async function aclsOfUser(ctx: AppContext, id: string): Promise<UserAcl[]> {
  await existingUser(ctx, id);
  const ids = await aclIdsGrantedToUser(ctx.db, id);
  if (ids.length === 0) return [];
  const rows = await ctx.db
    .selectFrom('knocs')
    .select(['id', 'description'])
    .where('id', 'in', ids)
    .orderBy('description')
    .execute();
  return rows.map((row) => ({ ID: row.id, Description: row.description }));
}

async function existingUser(ctx: AppContext, id: string): Promise<User> {
  const user = await findUserById(ctx.db, id);
  if (user === null) throw new NotFoundError({ extra: 'user' });
  return user;
}

async function recordOf(ctx: AppContext, user: User): Promise<UserRecord> {
  const [acls, active, licensed] = await Promise.all([
    directAclIds(ctx.db, user.id),
    usersWithActiveSessions(ctx.db, ctx.clock.now()),
    usersAreLicensed(ctx),
  ]);
  return toUserRecord(user, { aclIds: acls.get(user.id) ?? [], licensed, activeSession: active.has(user.id) });
}

/** SessionLimit is at most the licence's (when there is one). */
async function checkSessionLimit(ctx: AppContext, sessionLimit: number | null): Promise<void> {
  const max = await maxSessionLimit(ctx);
  if (sessionLimit !== null && max !== null && sessionLimit > max) {
    throw new BadRequestError({ extra: `SessionLimit: at most ${max} (the licence's limit)` });
  }
}

async function checkAclIds(db: Kysely<Database>, aclIds: readonly string[]): Promise<void> {
  const wanted = [...new Set(aclIds)];
  if (wanted.length === 0) return;
  const found = await db.selectFrom('knocs').select('id').where('id', 'in', wanted).execute();
  const known = new Set(found.map((row) => row.id));
  const unknown = wanted.filter((id) => !known.has(id));
  if (unknown.length > 0) throw new BadRequestError({ extra: `AclIds: unknown ${unknown.slice(0, 5).join(', ')}` });
}
