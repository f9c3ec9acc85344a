import {
  AuditActions,
  BOOTSTRAP_ADMIN_USERNAME,
  ErrorCodes,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  type AdminCreateBody,
  type AdminRecord,
  type AdminUpdateBody,
  type AuditAction,
} from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { BadRequestError, ConflictError, NotFoundError } from '../errors.js';
import { recordAudit } from '../audit/audit.js';
import { hashPassword } from '../lib/passwords.js';
import { resetTotp } from '../sessions/totp-store.js';
import { clearSecondFactorFailures } from '../sessions/second-factor-throttle.js';
import { endAdminSessions } from '../sessions/sessions.repo.js';
import { generatePassword } from '../lib/random-secret.js';
import { uuidv7 } from '../lib/ids.js';
import { isUniqueViolation } from '../lib/unique-violation.js';
import { DIRECTORY } from '../lib/account-provider.js';
import { toAdminRecord } from './admin-record.js';
import {
  countAdmins,
  deleteAdmin as deleteAdminRow,
  findAdminById,
  findAdminByUserName,
  insertAdmin,
  listAdmins as listAdminRows,
  setAdminPasswordHash,
  updateAdmin as updateAdminRow,
  type Admin,
} from './admins.repo.js';

/**
 * On an empty store, creates the administrator `postern-admin` with a random password and returns
 * the password so it can be shown once. Returns null when any admin exists already (every later
 * start), including when another replica created it a moment ago. Like every admin it has TOTP on;
 * it may postpone enrolment a few times ("Do this next time").
 */
export async function ensureBootstrapAdmin(ctx: AppContext): Promise<string | null> {
  if ((await countAdmins(ctx.db)) > 0) return null;
  const password = generatePassword();
  try {
    await insertLocalAdmin(ctx, {
      userName: BOOTSTRAP_ADMIN_USERNAME,
      name: 'Postern administrator',
      password,
      action: AuditActions.AdminCreatedAutomatically,
      actor: null,
    });
  } catch (error) {
    if (error instanceof ConflictError) return null;
    throw error;
  }
  return password;
}

export interface CreateAdminInput {
  userName: string;
  name: string;
  /** When omitted a random password is generated and returned. */
  password?: string;
}

/** Creates a local admin (the CLI's `admin create`); returns the password in force. */
export async function createAdminFromCli(ctx: AppContext, input: CreateAdminInput): Promise<string> {
  const password = input.password ?? generatePassword();
  await insertLocalAdmin(ctx, { ...input, password, action: AuditActions.AdminCreated, actor: null });
  return password;
}

/** Sets a new password (random unless given), ends the admin's sessions, and returns the password. */
export async function resetAdminPassword(ctx: AppContext, userName: string, password?: string): Promise<string> {
  // The CLI resets passwords, which only directory accounts have.
  const admin = await findAdminByUserName(ctx.db, DIRECTORY, userName);
  if (admin === null) throw new NotFoundError({ extra: `no admin named "${userName}"` });
  const newPassword = password ?? generatePassword();
  checkPasswordLength(newPassword);
  const passwordHash = await hashPassword(newPassword);
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    await setAdminPasswordHash(trx, admin.id, passwordHash, now);
    await endAdminSessions(trx, { adminId: admin.id }, 'account-changed', now);
    await recordAudit(trx, now, AuditActions.AdminPasswordReset, { AdminName: admin.userName });
  });
  return newPassword;
}

export async function listAdmins(ctx: AppContext): Promise<AdminRecord[]> {
  return (await listAdminRows(ctx.db)).map(toAdminRecord);
}

export async function getAdmin(ctx: AppContext, id: string): Promise<AdminRecord> {
  return toAdminRecord(await existingAdmin(ctx, id));
}

/** POST /api/admin/admins */
export async function createAdmin(ctx: AppContext, actor: Admin, body: AdminCreateBody): Promise<AdminRecord> {
  const now = ctx.clock.now();
  const admin: Admin = {
    id: uuidv7(now),
    name: body.Name,
    userName: body.UserName,
    authType: body.AuthType,
    passwordHash: body.AuthType === 'local' ? await hashPassword(body.PlainPassword ?? '') : null,
    ldapDn: body.AuthType === 'LDAP' ? (body.ThirdPartyAuth?.DN ?? null) : null,
    // OTP applies only to admins who do not sign in through SAML (spec) or OpenID Connect (the same rule).
    totpEnabled: body.TOTPEnabled && body.AuthType !== 'SAML' && body.AuthType !== 'oidc',
    totpVerified: false,
    totpSecret: null,
    totpPendingSecret: null,
    totpLastStep: null,
    totpDeferrals: 0,
    loginEnabled: body.LoginEnabled,
    createdAt: now,
    lastLogin: null,
    language: null,
  };
  try {
    await ctx.db.transaction().execute(async (trx) => {
      await insertAdmin(trx, admin);
      await recordAudit(trx, now, AuditActions.AdminCreated, {
        AdminName: actor.userName,
        Description: admin.userName,
      });
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError({ code: ErrorCodes.adminNameExists, extra: 'UserName' });
    throw error;
  }
  return toAdminRecord(admin);
}

/**
 * Updates an admin. The sign-in name and kind of account are fixed; an admin cannot turn off their own
 * second factor or their own sign-in (so someone who can sign in always remains). A new
 * password or a disabled sign-in ends the admin's sessions (the asking admin keeps the current one).
 */
export async function updateAdmin(
  ctx: AppContext,
  actor: Admin,
  currentSessionId: string,
  id: string,
  body: AdminUpdateBody,
): Promise<AdminRecord> {
  if (body.ID !== id) throw new BadRequestError({ code: ErrorCodes.mismatchingIds });
  const existing = await existingAdmin(ctx, id);
  const newPassword = body.PlainPassword ?? '';
  if (
    body.UserName !== existing.userName ||
    body.AuthType !== existing.authType ||
    (newPassword !== '' && existing.authType !== 'local')
  ) {
    throw new BadRequestError({ code: ErrorCodes.cannotChangeIdentity });
  }
  const self = actor.id === id;
  const totpEnabled = body.TOTPEnabled && existing.authType !== 'SAML' && existing.authType !== 'oidc';
  if (self && existing.totpEnabled && !totpEnabled) throw new BadRequestError({ code: ErrorCodes.cannotDisableOwn2fa });
  if (self && !body.LoginEnabled)
    throw new BadRequestError({ code: ErrorCodes.cannotDeleteSelf, extra: 'LoginEnabled' });
  const passwordHash = newPassword === '' ? undefined : await hashPassword(newPassword);
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    await updateAdminRow(
      trx,
      id,
      {
        name: body.Name,
        totpEnabled,
        loginEnabled: body.LoginEnabled,
        ldapDn: existing.authType === 'LDAP' ? (body.ThirdPartyAuth?.DN ?? existing.ldapDn) : null,
        ...(passwordHash === undefined ? {} : { passwordHash }),
      },
      now,
    );
    if (passwordHash !== undefined || !body.LoginEnabled) {
      const selection = self ? { adminId: id, exceptSessionId: currentSessionId } : { adminId: id };
      await endAdminSessions(trx, selection, 'account-changed', now);
    }
    await recordAudit(trx, now, AuditActions.AdminUpdated, {
      AdminName: actor.userName,
      Description: existing.userName,
    });
  });
  return getAdmin(ctx, id);
}

/**
 * Deletes another admin, never yourself. With that rule and the one that you cannot turn off your own
 * sign-in, the admin asking always remains, so the console can never be left without an admin.
 */
export async function deleteAdmin(ctx: AppContext, actor: Admin, id: string): Promise<void> {
  const admin = await existingAdmin(ctx, id);
  if (actor.id === id) throw new BadRequestError({ code: ErrorCodes.cannotDeleteSelf });
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    await endAdminSessions(trx, { adminId: id }, 'account-deleted', now);
    await deleteAdminRow(trx, id);
    await recordAudit(trx, now, AuditActions.AdminDeleted, { AdminName: actor.userName, Description: admin.userName });
  });
}

/** DELETE /api/admin/admins/{id}/totpToken: another admin's authenticator is forgotten; they enrol again. */
export async function resetAdminTotp(ctx: AppContext, actor: Admin, id: string): Promise<void> {
  if (actor.id === id) throw new BadRequestError({ code: ErrorCodes.cannotResetOwn2fa });
  const admin = await existingAdmin(ctx, id);
  if (!admin.totpEnabled) throw new BadRequestError({ code: ErrorCodes.totpNotEnabled });
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    await resetTotp(trx, 'admins', id, now);
    // A new enrolment starts with a clean slate, also for an account whose guessing had stopped.
    await clearSecondFactorFailures(trx, admin.userName);
    // Enrolment starts over, including the allowance to postpone it.
    await trx.updateTable('admins').set({ totpDeferrals: 0 }).where('id', '=', id).execute();
    await recordAudit(trx, now, AuditActions.AdminTotpReset, {
      AdminName: actor.userName,
      Description: admin.userName,
    });
  });
}

async function existingAdmin(ctx: AppContext, id: string): Promise<Admin> {
  const admin = await findAdminById(ctx.db, id);
  if (admin === null) throw new NotFoundError({ extra: 'admin' });
  return admin;
}

async function insertLocalAdmin(
  ctx: AppContext,
  input: { userName: string; name: string; password: string; action: AuditAction; actor: Admin | null },
): Promise<void> {
  const userName = input.userName.trim();
  if (userName === '') throw new BadRequestError({ extra: 'UserName' });
  if (input.name.trim() === '') throw new BadRequestError({ extra: 'Name' });
  checkPasswordLength(input.password);
  const passwordHash = await hashPassword(input.password);
  const now = ctx.clock.now();
  try {
    await ctx.db.transaction().execute(async (trx) => {
      await insertAdmin(trx, {
        id: uuidv7(now),
        name: input.name.trim(),
        userName,
        authType: 'local',
        passwordHash,
        ldapDn: null,
        totpEnabled: true,
        totpVerified: false,
        loginEnabled: true,
        createdAt: now,
      });
      await recordAudit(trx, now, input.action, { AdminName: userName });
    });
  } catch (error) {
    if (isUniqueViolation(error))
      throw new ConflictError({ code: ErrorCodes.adminNameExists, extra: `an admin named "${userName}" exists` });
    throw error;
  }
}

function checkPasswordLength(password: string): void {
  if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) {
    throw new BadRequestError({
      code: ErrorCodes.passwordLength,
      extra: `Password: Must be between ${PASSWORD_MIN_LENGTH} and ${PASSWORD_MAX_LENGTH} characters`,
    });
  }
}
