import {
  AuditActions,
  BOOTSTRAP_ADMIN_USERNAME,
  ErrorCodes,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
} from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { BadRequestError, ConflictError, NotFoundError } from '../http/errors.js';
import { recordAudit } from '../audit/audit.js';
import { hashPassword } from '../auth/passwords.js';
import { endAllSessionsOf } from '../auth/sessions.repo.js';
import { generatePassword } from '../lib/random-secret.js';
import { uuidv7 } from '../lib/ids.js';
import { isUniqueViolation } from '../lib/unique-violation.js';
import { countAdmins, findAdminByUserName, insertAdmin, setAdminPasswordHash } from './admins.repo.js';

/**
 * On an empty store, creates the administrator `postern-admin` with a random password and returns
 * the password so it can be shown once. Returns null when any admin exists already (every later
 * start), including when another replica created it a moment ago.
 */
export async function ensureBootstrapAdmin(ctx: AppContext): Promise<string | null> {
  if ((await countAdmins(ctx.db)) > 0) return null;
  const password = generatePassword();
  try {
    await createLocalAdmin(ctx, {
      userName: BOOTSTRAP_ADMIN_USERNAME,
      name: 'Postern administrator',
      password,
      action: AuditActions.AdminCreatedAutomatically,
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
export async function createAdmin(ctx: AppContext, input: CreateAdminInput): Promise<string> {
  const password = input.password ?? generatePassword();
  await createLocalAdmin(ctx, { ...input, password, action: AuditActions.AdminCreated });
  return password;
}

/** Sets a new password (random unless given), ends the admin's sessions, and returns the password. */
export async function resetAdminPassword(ctx: AppContext, userName: string, password?: string): Promise<string> {
  const admin = await findAdminByUserName(ctx.db, userName);
  if (admin === null) throw new NotFoundError(`no admin named "${userName}"`);
  const newPassword = password ?? generatePassword();
  checkPasswordLength(newPassword);
  const passwordHash = await hashPassword(newPassword);
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    await setAdminPasswordHash(trx, admin.id, passwordHash, now);
    await endAllSessionsOf(trx, 'admin', admin.id, 'account-changed', now);
    await recordAudit(trx, now, AuditActions.AdminPasswordReset, { AdminName: admin.userName });
  });
  return newPassword;
}

async function createLocalAdmin(
  ctx: AppContext,
  input: {
    userName: string;
    name: string;
    password: string;
    action: typeof AuditActions.AdminCreated | typeof AuditActions.AdminCreatedAutomatically;
  },
): Promise<void> {
  const userName = input.userName.trim();
  if (userName === '') throw new BadRequestError('UserName');
  if (input.name.trim() === '') throw new BadRequestError('Name');
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
        // Second factors arrive with TOTP support; until then an admin signs in with a password.
        totpEnabled: false,
        totpVerified: false,
        loginEnabled: true,
        createdAt: now,
      });
      await recordAudit(trx, now, input.action, { AdminName: userName });
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError(ErrorCodes.conflict, `an admin named "${userName}" exists`);
    throw error;
  }
}

function checkPasswordLength(password: string): void {
  if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) {
    throw new BadRequestError(`Password: Must be between ${PASSWORD_MIN_LENGTH} and ${PASSWORD_MAX_LENGTH} characters`);
  }
}
