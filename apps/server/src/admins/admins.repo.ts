import type { Kysely, Selectable } from 'kysely';
import type { AccountLanguage, AdminAuthType } from '@postern/protocol';
import type { AdminsTable, Database } from '../store/schema.js';
import { bool, storedLanguage } from '../lib/rows.js';
import { providerOf, type AccountProvider } from '../lib/account-provider.js';
import type { ExternalIdentity } from '../users/users.repo.js';

/** An administrator account as the services use it. */
export interface Admin {
  id: string;
  name: string;
  userName: string;
  authType: AdminAuthType;
  passwordHash: string | null;
  ldapDn: string | null;
  totpEnabled: boolean;
  totpVerified: boolean;
  /** Sealed TOTP secret (see secrets/secret-box.ts), or null before enrolment. */
  totpSecret: string | null;
  totpPendingSecret: string | null;
  totpLastStep: number | null;
  /** Times the admin postponed setting up an authenticator. */
  totpDeferrals: number;
  loginEnabled: boolean;
  createdAt: number;
  lastLogin: number | null;
  /** The language the account chose, or null: the browser's decides. */
  language: AccountLanguage | null;
}

export type NewAdmin = Omit<
  Admin,
  'lastLogin' | 'language' | 'totpSecret' | 'totpPendingSecret' | 'totpLastStep' | 'totpDeferrals'
>;

function toAdmin(row: Selectable<AdminsTable>): Admin {
  return {
    id: row.id,
    name: row.name,
    userName: row.userName,
    authType: row.authType as AdminAuthType,
    passwordHash: row.passwordHash,
    ldapDn: row.ldapDn,
    totpEnabled: bool(row.totpEnabled),
    totpVerified: bool(row.totpVerified),
    totpSecret: row.totpSecret,
    totpPendingSecret: row.totpPendingSecret,
    totpLastStep: row.totpLastStep,
    totpDeferrals: Number(row.totpDeferrals),
    loginEnabled: bool(row.loginEnabled),
    createdAt: row.createdAt,
    lastLogin: row.lastLogin,
    language: storedLanguage(row.language),
  };
}

/** The admin `userName` among `provider`'s accounts (lib/account-provider.ts); see findUserByUserName. */
export async function findAdminByUserName(
  db: Kysely<Database>,
  provider: AccountProvider,
  userName: string,
): Promise<Admin | null> {
  const row = await db
    .selectFrom('admins')
    .selectAll()
    .where('provider', '=', provider)
    .where('userName', '=', userName)
    .executeTakeFirst();
  return row === undefined ? null : toAdmin(row);
}

/** The provider identity an OpenID Connect admin is bound to, or null before their first sign-in. */
export async function externalIdentityOfAdmin(db: Kysely<Database>, id: string): Promise<ExternalIdentity | null> {
  const row = await db
    .selectFrom('admins')
    .select(['externalIssuer', 'externalSubject'])
    .where('id', '=', id)
    .executeTakeFirst();
  if (row === undefined || row.externalIssuer === null || row.externalSubject === null) return null;
  return { issuer: row.externalIssuer, subject: row.externalSubject };
}

/** Binds an admin to their provider identity; only while they have none, so a binding never changes. */
export async function bindAdminExternalIdentity(
  db: Kysely<Database>,
  id: string,
  identity: ExternalIdentity,
): Promise<boolean> {
  const result = await db
    .updateTable('admins')
    .set({ externalIssuer: identity.issuer, externalSubject: identity.subject })
    .where('id', '=', id)
    .where('externalIssuer', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function findAdminById(db: Kysely<Database>, id: string): Promise<Admin | null> {
  const row = await db.selectFrom('admins').selectAll().where('id', '=', id).executeTakeFirst();
  return row === undefined ? null : toAdmin(row);
}

export async function countAdmins(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('admins')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

export async function insertAdmin(db: Kysely<Database>, admin: NewAdmin): Promise<void> {
  await db
    .insertInto('admins')
    .values({
      id: admin.id,
      name: admin.name,
      userName: admin.userName,
      authType: admin.authType,
      passwordHash: admin.passwordHash,
      ldapDn: admin.ldapDn,
      totpEnabled: admin.totpEnabled,
      totpVerified: admin.totpVerified,
      totpSecret: null,
      loginEnabled: admin.loginEnabled,
      createdAt: admin.createdAt,
      updatedAt: admin.createdAt,
      lastLogin: null,
      // Named only outside the directory (the column's default), as in insertUser.
      ...(providerOf(admin.authType) === '' ? {} : { provider: providerOf(admin.authType) }),
    })
    .execute();
}

/** Stores a new password; the device cookies issued until now stop counting as the account's (auth/device-cookie.ts). */
export async function setAdminPasswordHash(db: Kysely<Database>, id: string, passwordHash: string, now: number) {
  await db
    .updateTable('admins')
    .set({ passwordHash, deviceCookiesValidAfter: now, updatedAt: now })
    .where('id', '=', id)
    .execute();
}

export async function recordAdminLogin(db: Kysely<Database>, id: string, now: number): Promise<void> {
  await db.updateTable('admins').set({ lastLogin: now }).where('id', '=', id).execute();
}

export async function listAdmins(db: Kysely<Database>): Promise<Admin[]> {
  const rows = await db.selectFrom('admins').selectAll().orderBy('name').orderBy('id').execute();
  return rows.map(toAdmin);
}

/** The fields an admin may change on an existing admin. */
export interface AdminChanges {
  name: string;
  totpEnabled: boolean;
  loginEnabled: boolean;
  ldapDn: string | null;
  /** A new password's hash; omitted keeps the current one. */
  passwordHash?: string;
}

export async function updateAdmin(db: Kysely<Database>, id: string, changes: AdminChanges, now: number): Promise<void> {
  await db
    .updateTable('admins')
    // A new password revokes the device cookies issued until now (auth/device-cookie.ts).
    .set({
      ...changes,
      ...(changes.passwordHash === undefined ? {} : { deviceCookiesValidAfter: now }),
      updatedAt: now,
    })
    .where('id', '=', id)
    .execute();
}

/** Deletes the account with its passkeys (which no foreign key can tie to it: migration 0020). */
export async function deleteAdmin(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom('passkeys').where('realm', '=', 'admin').where('accountId', '=', id).execute();
  await db.deleteFrom('webauthnCeremonies').where('realm', '=', 'admin').where('accountId', '=', id).execute();
  await db.deleteFrom('admins').where('id', '=', id).execute();
}

/** Keeps the admin's chosen language (PUT …/account/language). */
export async function setAdminLanguage(
  db: Kysely<Database>,
  id: string,
  language: AccountLanguage,
  now: number,
): Promise<void> {
  await db.updateTable('admins').set({ language, updatedAt: now }).where('id', '=', id).execute();
}
