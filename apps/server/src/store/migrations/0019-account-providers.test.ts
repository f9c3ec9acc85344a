import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { bothStores } from '../../test-support/store-kinds.js';
import { useStoreBeforeMigration } from '../../test-support/migration-test.js';
import { isUniqueViolation } from '../../lib/unique-violation.js';

const THIS_MIGRATION = '0019-account-providers';
const T0 = Date.UTC(2026, 10, 22, 9, 0, 0);

/** A users row as the store held it before this migration (no provider column yet). */
function userRow(id: string, userName: string, authType = 'local') {
  return {
    id,
    name: userName,
    userName,
    company: '',
    authType,
    passwordHash: null,
    ldapDn: null,
    durationMinutes: 480,
    sessionLimit: null,
    totpEnabled: false,
    totpVerified: false,
    totpSecret: null,
    disabled: false,
    validUntil: null,
    createdAt: T0,
    updatedAt: T0,
    lastLogin: null,
  };
}

function adminRow(id: string, userName: string) {
  return {
    id,
    name: userName,
    userName,
    authType: 'local',
    passwordHash: null,
    ldapDn: null,
    totpEnabled: true,
    totpVerified: false,
    totpSecret: null,
    loginEnabled: true,
    createdAt: T0,
    updatedAt: T0,
    lastLogin: null,
  };
}

async function refusedAsDuplicate(insert: Promise<unknown>): Promise<boolean> {
  try {
    await insert;
    return false;
  } catch (error) {
    return isUniqueViolation(error);
  }
}

describe.each(bothStores())(`migration ${THIS_MIGRATION} (%s)`, (kind) => {
  const t = useStoreBeforeMigration(kind, THIS_MIGRATION);

  it('keeps every account with what hangs off it (sessions, groups), in Postern’s directory', async () => {
    const db = t.db;
    await db.insertInto('users').values(userRow('u1', 'alice')).execute();
    await db.insertInto('admins').values(adminRow('a1', 'root')).execute();
    await db
      .insertInto('userSessions')
      .values({
        id: 's1',
        tokenHash: 'h1',
        userId: 'u1',
        createdAt: T0,
        endsAt: T0 + 60_000,
        endedAt: null,
        endReason: null,
        ipAddress: '192.0.2.1',
        userAgent: 'test',
        kiosk: false,
      })
      .execute();
    await db
      .insertInto('adminSessions')
      .values({
        id: 's2',
        tokenHash: 'h2',
        adminId: 'a1',
        createdAt: T0,
        endsAt: T0 + 60_000,
        endedAt: null,
        endReason: null,
        ipAddress: '192.0.2.1',
        userAgent: 'test',
      })
      .execute();
    await db
      .insertInto('groups')
      .values({ id: 'g1', name: 'ops', description: '', type: 'local', createdAt: T0, updatedAt: T0 })
      .execute();
    await db.insertInto('groupUsers').values({ groupId: 'g1', userId: 'u1' }).execute();

    await t.migrateToLatest();

    const user = await db.selectFrom('users').selectAll().where('id', '=', 'u1').executeTakeFirstOrThrow();
    expect(user).toMatchObject({ userName: 'alice', provider: '', externalIssuer: null, externalSubject: null });
    const admin = await db.selectFrom('admins').selectAll().where('id', '=', 'a1').executeTakeFirstOrThrow();
    expect(admin).toMatchObject({ userName: 'root', provider: '' });
    expect(await db.selectFrom('userSessions').select('id').execute()).toEqual([{ id: 's1' }]);
    expect(await db.selectFrom('adminSessions').select('id').execute()).toEqual([{ id: 's2' }]);
    expect(await db.selectFrom('groupUsers').selectAll().execute()).toEqual([{ groupId: 'g1', userId: 'u1' }]);
  });

  it('makes user names unique per provider: an OpenID Connect alice beside the local one, never two of either', async () => {
    const db = t.db;
    await db.insertInto('users').values(userRow('u1', 'alice')).execute();
    await db.insertInto('admins').values(adminRow('a1', 'alice')).execute();
    await t.migrateToLatest();

    await db
      .insertInto('users')
      .values({ ...userRow('u2', 'alice', 'oidc'), provider: 'oidc' })
      .execute();
    await db
      .insertInto('admins')
      .values({ ...adminRow('a2', 'alice'), authType: 'oidc', provider: 'oidc' })
      .execute();
    expect(
      await refusedAsDuplicate(
        db
          .insertInto('users')
          .values(userRow('u3', 'alice', 'SAML'))
          .execute(),
      ),
    ).toBe(true);
    expect(
      await refusedAsDuplicate(
        db
          .insertInto('users')
          .values({ ...userRow('u4', 'alice', 'oidc'), provider: 'oidc' })
          .execute(),
      ),
    ).toBe(true);
    expect(await refusedAsDuplicate(db.insertInto('admins').values(adminRow('a3', 'alice')).execute())).toBe(true);
    expect(await db.selectFrom('users').select(['id', 'provider']).orderBy('id').execute()).toEqual([
      { id: 'u1', provider: '' },
      { id: 'u2', provider: 'oidc' },
    ]);
  });

  it('leaves foreign keys enforced: deleting a user still ends what references it', async () => {
    const db = t.db;
    await db.insertInto('users').values(userRow('u1', 'alice')).execute();
    await db
      .insertInto('groups')
      .values({ id: 'g1', name: 'ops', description: '', type: 'local', createdAt: T0, updatedAt: T0 })
      .execute();
    await db.insertInto('groupUsers').values({ groupId: 'g1', userId: 'u1' }).execute();
    await t.migrateToLatest();

    await db.deleteFrom('users').where('id', '=', 'u1').execute();
    expect(await db.selectFrom('groupUsers').selectAll().execute()).toEqual([]);
    // A membership of a user who does not exist is refused.
    await expect(db.insertInto('groupUsers').values({ groupId: 'g1', userId: 'nobody' }).execute()).rejects.toThrow();
    if (kind === 'sqlite') {
      const pragma = await sql<{ foreignKeys: number }>`pragma foreign_keys`.execute(db);
      expect(pragma.rows[0]?.foreignKeys).toBe(1);
    }
  });

  it('is undone when no name is held by two providers, with names unique overall again', async () => {
    const db = t.db;
    await db.insertInto('users').values(userRow('u1', 'alice')).execute();
    await t.migrateToLatest();
    await t.migrateToBefore();

    expect(await db.selectFrom('users').select(['id', 'userName']).execute()).toEqual([
      { id: 'u1', userName: 'alice' },
    ]);
    expect(
      await refusedAsDuplicate(
        db
          .insertInto('users')
          .values(userRow('u2', 'alice', 'SAML'))
          .execute(),
      ),
    ).toBe(true);
  });
});
