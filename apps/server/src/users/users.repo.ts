import type { Kysely, Selectable } from 'kysely';
import type { UserAuthType } from '@postern/protocol';
import type { Database, UsersTable } from '../store/schema.js';
import { bool } from '../lib/rows.js';

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
  disabled: boolean;
  validUntil: number | null;
  createdAt: number;
  lastLogin: number | null;
}

export type NewUser = Omit<User, 'lastLogin'>;

function toUser(row: Selectable<UsersTable>): User {
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
    disabled: bool(row.disabled),
    validUntil: row.validUntil,
    createdAt: row.createdAt,
    lastLogin: row.lastLogin,
  };
}

export async function findUserByUserName(db: Kysely<Database>, userName: string): Promise<User | null> {
  const row = await db.selectFrom('users').selectAll().where('userName', '=', userName).executeTakeFirst();
  return row === undefined ? null : toUser(row);
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
    })
    .execute();
}

export async function recordUserLogin(db: Kysely<Database>, id: string, now: number): Promise<void> {
  await db.updateTable('users').set({ lastLogin: now }).where('id', '=', id).execute();
}
