import type { Kysely, Selectable } from 'kysely';
import type { AccountLanguage, UserAuthType } from '@postern/protocol';
import type { Database, UsersTable } from '../store/schema.js';
import { bool, storedLanguage } from '../lib/rows.js';
import { providerOf, type AccountProvider } from '../lib/account-provider.js';

/** A user account as the services use it. */
export interface User {
  id: string;
  name: string;
  userName: string;
  company: string;
  authType: UserAuthType;
  passwordHash: string | null;
  ldapDn: string | null;
  durationMinutes: number;
  sessionLimit: number | null;
  totpEnabled: boolean;
  totpVerified: boolean;
  /** Sealed TOTP secret (see secrets/secret-box.ts), or null before enrolment. */
  totpSecret: string | null;
  totpPendingSecret: string | null;
  totpLastStep: number | null;
  disabled: boolean;
  validUntil: number | null;
  createdAt: number;
  lastLogin: number | null;
  /** The language the account chose, or null: the browser's decides. */
  language: AccountLanguage | null;
}

export type NewUser = Omit<User, 'lastLogin' | 'language' | 'totpSecret' | 'totpPendingSecret' | 'totpLastStep'>;

/** A users row as the services use it. */
export function toUser(row: Selectable<UsersTable>): User {
  return {
    id: row.id,
    name: row.name,
    userName: row.userName,
    company: row.company,
    authType: row.authType as UserAuthType,
    passwordHash: row.passwordHash,
    ldapDn: row.ldapDn,
    durationMinutes: row.durationMinutes,
    sessionLimit: row.sessionLimit,
    totpEnabled: bool(row.totpEnabled),
    totpVerified: bool(row.totpVerified),
    totpSecret: row.totpSecret,
    totpPendingSecret: row.totpPendingSecret,
    totpLastStep: row.totpLastStep,
    disabled: bool(row.disabled),
    validUntil: row.validUntil,
    createdAt: row.createdAt,
    lastLogin: row.lastLogin,
    language: storedLanguage(row.language),
  };
}

/**
 * The user `userName` among `provider`'s accounts (lib/account-provider.ts): a sign-in names the
 * provider it trusts, so a name at one provider never reaches an account of another.
 */
export async function findUserByUserName(
  db: Kysely<Database>,
  provider: AccountProvider,
  userName: string,
): Promise<User | null> {
  const row = await db
    .selectFrom('users')
    .selectAll()
    .where('provider', '=', provider)
    .where('userName', '=', userName)
    .executeTakeFirst();
  return row === undefined ? null : toUser(row);
}

/** The provider identity (`iss`, `sub`) an OpenID Connect account is bound to, or null before its first sign-in. */
export interface ExternalIdentity {
  issuer: string;
  subject: string;
}

export async function externalIdentityOfUser(db: Kysely<Database>, id: string): Promise<ExternalIdentity | null> {
  const row = await db
    .selectFrom('users')
    .select(['externalIssuer', 'externalSubject'])
    .where('id', '=', id)
    .executeTakeFirst();
  if (row === undefined || row.externalIssuer === null || row.externalSubject === null) return null;
  return { issuer: row.externalIssuer, subject: row.externalSubject };
}

/** Binds an account to its provider identity; only while it has none, so a binding never changes. */
export async function bindUserExternalIdentity(
  db: Kysely<Database>,
  id: string,
  identity: ExternalIdentity,
): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ externalIssuer: identity.issuer, externalSubject: identity.subject })
    .where('id', '=', id)
    .where('externalIssuer', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function findUserById(db: Kysely<Database>, id: string): Promise<User | null> {
  const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  return row === undefined ? null : toUser(row);
}

export async function countUsers(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

export async function insertUser(db: Kysely<Database>, user: NewUser): Promise<void> {
  await db
    .insertInto('users')
    .values({
      id: user.id,
      name: user.name,
      userName: user.userName,
      company: user.company,
      authType: user.authType,
      passwordHash: user.passwordHash,
      ldapDn: user.ldapDn,
      durationMinutes: user.durationMinutes,
      sessionLimit: user.sessionLimit,
      totpEnabled: user.totpEnabled,
      totpVerified: user.totpVerified,
      totpSecret: null,
      disabled: user.disabled,
      validUntil: user.validUntil,
      createdAt: user.createdAt,
      updatedAt: user.createdAt,
      lastLogin: null,
      // Named only outside the directory (the column's default), so that the migrations' tests can still
      // write directory accounts into stores from before the column.
      ...(providerOf(user.authType) === '' ? {} : { provider: providerOf(user.authType) }),
    })
    .execute();
}

export async function recordUserLogin(db: Kysely<Database>, id: string, now: number): Promise<void> {
  await db.updateTable('users').set({ lastLogin: now }).where('id', '=', id).execute();
}

export async function listUsers(db: Kysely<Database>): Promise<User[]> {
  const rows = await db.selectFrom('users').selectAll().orderBy('name').orderBy('id').execute();
  return rows.map(toUser);
}

/** The fields an admin may change on an existing user. */
export interface UserChanges {
  name: string;
  company: string;
  durationMinutes: number;
  sessionLimit: number | null;
  totpEnabled: boolean;
  disabled: boolean;
  validUntil: number | null;
  ldapDn: string | null;
  /** A new password's hash; omitted keeps the current one. */
  passwordHash?: string;
}

export async function updateUser(db: Kysely<Database>, id: string, changes: UserChanges, now: number): Promise<void> {
  await db
    .updateTable('users')
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
export async function deleteUser(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom('passkeys').where('realm', '=', 'user').where('accountId', '=', id).execute();
  await db.deleteFrom('webauthnCeremonies').where('realm', '=', 'user').where('accountId', '=', id).execute();
  await db.deleteFrom('users').where('id', '=', id).execute();
}

/** Stores a new password; the device cookies issued until now stop counting as the account's (auth/device-cookie.ts). */
export async function setUserPasswordHash(db: Kysely<Database>, id: string, passwordHash: string, now: number) {
  await db
    .updateTable('users')
    .set({ passwordHash, deviceCookiesValidAfter: now, updatedAt: now })
    .where('id', '=', id)
    .execute();
}

/** Each user's directly assigned ACL ids (group grants are separate). */
export async function directAclIds(db: Kysely<Database>, userId?: string): Promise<Map<string, string[]>> {
  let query = db.selectFrom('userAcls').select(['userId', 'aclId']).orderBy('aclId');
  if (userId !== undefined) query = query.where('userId', '=', userId);
  const byUser = new Map<string, string[]>();
  for (const row of await query.execute()) {
    const list = byUser.get(row.userId) ?? [];
    list.push(row.aclId);
    byUser.set(row.userId, list);
  }
  return byUser;
}

/** Replaces a user's directly assigned ACLs. */
export async function setDirectAclIds(db: Kysely<Database>, userId: string, aclIds: readonly string[]): Promise<void> {
  await db.deleteFrom('userAcls').where('userId', '=', userId).execute();
  if (aclIds.length > 0) {
    await db
      .insertInto('userAcls')
      .values([...new Set(aclIds)].map((aclId) => ({ userId, aclId })))
      .execute();
  }
}

/** Keeps the user's chosen language (PUT …/account/language). */
export async function setUserLanguage(
  db: Kysely<Database>,
  id: string,
  language: AccountLanguage,
  now: number,
): Promise<void> {
  await db.updateTable('users').set({ language, updatedAt: now }).where('id', '=', id).execute();
}
