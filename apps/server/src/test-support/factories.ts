import { USER_SESSION_MINUTES_DEFAULT } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { hashPassword } from '../lib/passwords.js';
import { insertUser, type NewUser } from '../users/users.repo.js';
import { insertAdmin, type NewAdmin } from '../admins/admins.repo.js';
import { uuidv7 } from '../lib/ids.js';

let sequence = 0;

/**
 * The time limit for a test that hashes or verifies passwords (argon2id at the production cost,
 * ~50-100 ms each on a quiet machine, many times that on a busy one): a sign-in, creating an
 * account with a password through the API. Tests that are not about passwords avoid both
 * (givenAdminSession, the factories' written-down hashes) and keep vitest's default.
 */
export const PASSWORD_TEST_TIMEOUT_MS = 60_000;

/** The password givenUser gives unless told another. */
export const DEFAULT_USER_PASSWORD = 'correct horse battery';
/** The password givenAdmin gives unless told another. */
export const DEFAULT_ADMIN_PASSWORD = 'admin password 1';

/**
 * argon2id hashes of the default passwords, made once with hashPassword (the production cost) and
 * written down: making an account then costs no hashing at all, while a sign-in still verifies the
 * password at full cost. factories.test.ts checks that they verify and carry hashPassword's
 * parameters, so a change of cost shows there.
 */
export const KNOWN_PASSWORD_HASHES: Readonly<Record<string, string>> = {
  [DEFAULT_USER_PASSWORD]:
    '$argon2id$v=19$m=47104,t=1,p=1$eZtd3M/JUqMwUn8cFYQLBg$1jCACRVvO96rj3YN6zreZ0QXsbFOyVJedWgXX9OUEpE',
  [DEFAULT_ADMIN_PASSWORD]:
    '$argon2id$v=19$m=47104,t=1,p=1$CYDjl6HTcmygFz+evyOT+Q$QOo7Qp4jyohqZL191MxNYOUfzDwBKEj5M1Km/FviRyQ',
};

const passwordHashes = new Map<string, Promise<string>>();

/**
 * The production hash of `password`: written down for the default passwords, else made once per
 * test file and password (a fresh hash costs ~50 MiB and 50-100 ms). Only the salt is shared, which
 * no test of a factory-made account looks at.
 */
function knownPasswordHash(password: string): Promise<string> {
  const written = KNOWN_PASSWORD_HASHES[password];
  if (written !== undefined) return Promise.resolve(written);
  let hash = passwordHashes.get(password);
  if (hash === undefined) {
    hash = hashPassword(password);
    passwordHashes.set(password, hash);
  }
  return hash;
}

/** A local user with a known password; override any field. */
export async function givenUser(
  ctx: AppContext,
  overrides: Partial<NewUser> & { password?: string } = {},
): Promise<NewUser & { password: string }> {
  sequence += 1;
  const { password = DEFAULT_USER_PASSWORD, ...fields } = overrides;
  const user: NewUser = {
    id: uuidv7(ctx.clock.now()),
    name: `Test User ${sequence}`,
    userName: `user${sequence}`,
    company: 'Example Pty Ltd',
    authType: 'local',
    passwordHash: await knownPasswordHash(password),
    ldapDn: null,
    durationMinutes: USER_SESSION_MINUTES_DEFAULT,
    sessionLimit: null,
    totpEnabled: false,
    totpVerified: false,
    disabled: false,
    validUntil: null,
    createdAt: ctx.clock.now(),
    ...fields,
  };
  await insertUser(ctx.db, user);
  return { ...user, password };
}

/** A local admin with a known password; override any field. */
export async function givenAdmin(
  ctx: AppContext,
  overrides: Partial<NewAdmin> & { password?: string } = {},
): Promise<NewAdmin & { password: string }> {
  sequence += 1;
  const { password = DEFAULT_ADMIN_PASSWORD, ...fields } = overrides;
  const admin: NewAdmin = {
    id: uuidv7(ctx.clock.now()),
    name: `Test Admin ${sequence}`,
    userName: `admin${sequence}`,
    authType: 'local',
    passwordHash: await knownPasswordHash(password),
    ldapDn: null,
    totpEnabled: false,
    totpVerified: false,
    loginEnabled: true,
    createdAt: ctx.clock.now(),
    ...fields,
  };
  await insertAdmin(ctx.db, admin);
  return { ...admin, password };
}

/** A knoc row as far as memberships need one (the grant engine's fields come later). */
export async function givenKnoc(
  ctx: AppContext,
  overrides: { id?: string; description?: string; hideFromAdmins?: boolean } = {},
): Promise<{ id: string; description: string }> {
  sequence += 1;
  const knoc = {
    id: overrides.id ?? uuidv7(ctx.clock.now()),
    description: overrides.description ?? `Knoc ${sequence}`,
  };
  await ctx.db
    .insertInto('knocs')
    .values({
      ...knoc,
      hideFromAdmins: overrides.hideFromAdmins ?? false,
      createdAt: ctx.clock.now(),
      updatedAt: ctx.clock.now(),
    })
    .execute();
  return knoc;
}
