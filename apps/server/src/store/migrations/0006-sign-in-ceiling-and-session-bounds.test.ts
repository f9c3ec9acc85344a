import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { USER_SESSION_MINUTES_MAX } from '@postern/protocol';
import { createTestStore, type TestStore } from '../../test-support/test-app.js';
import { bothStores } from '../../test-support/store-kinds.js';
import { insertUser } from '../../users/users.repo.js';
import { migrateTo, migrateToLatest } from '../migrate.js';
import { MIGRATION_NAMES } from './index.js';

const THIS_MIGRATION = '0006-sign-in-ceiling-and-session-bounds';
const T0 = Date.UTC(2026, 10, 22, 9, 0, 0);
const HOUR = 3_600_000;
const YEAR_MS = USER_SESSION_MINUTES_MAX * 60_000;
/** The largest value PostgreSQL's integer column holds (SQLite's holds more). */
const INT4_MAX = 2 ** 31 - 1;

/** Brings a new store to the migration before this one, the way a store in the field would be. */
async function migrateToBefore(t: TestStore): Promise<void> {
  await migrateTo(t.store.db, MIGRATION_NAMES[MIGRATION_NAMES.indexOf(THIS_MIGRATION) - 1] ?? '');
}

describe.each(bothStores())(`migration ${THIS_MIGRATION} (%s)`, (kind) => {
  let t: TestStore;
  beforeEach(async () => {
    t = await createTestStore(kind, { migrate: false });
    await migrateToBefore(t);
  });
  afterEach(async () => {
    await t.dispose();
  });

  async function givenUserRow(id: string, durationMinutes: number) {
    await insertUser(t.store.db, {
      id,
      name: id,
      userName: id,
      company: '',
      authType: 'local',
      passwordHash: null,
      ldapDn: null,
      durationMinutes,
      sessionLimit: null,
      totpEnabled: false,
      totpVerified: false,
      disabled: false,
      validUntil: null,
      createdAt: T0,
    });
  }

  async function givenSessionAndGrant(id: string, userId: string, endsAt: number) {
    await t.store.db
      .insertInto('userSessions')
      .values({
        id,
        tokenHash: `hash-${id}`,
        userId,
        createdAt: T0,
        endsAt,
        endedAt: null,
        endReason: null,
        ipAddress: '192.0.2.10',
        userAgent: 'test',
        kiosk: false,
      })
      .execute();
    await t.store.db
      .insertInto('grants')
      .values({
        id: `grant-${id}`,
        aclId: 'knoc-1',
        sessionId: id,
        userId,
        userName: userId,
        ip: '192.0.2.10',
        origin: 'user',
        status: 0,
        createdAt: T0,
        updatedAt: T0,
        expiresAt: endsAt,
        endedAt: null,
        endReason: null,
      })
      .execute();
  }

  it('clamps Durations, session ends and grant expiries beyond a year, and leaves the rest alone', async () => {
    await t.store.db
      .insertInto('knocs')
      .values({ id: 'knoc-1', description: 'VPN', hideFromAdmins: false, createdAt: T0, updatedAt: T0 })
      .execute();
    await givenUserRow('huge', INT4_MAX);
    await givenUserRow('normal', 480);
    // 10^12 minutes: past the last date JavaScript can write.
    await givenSessionAndGrant('beyond-dates', 'huge', T0 + 10 ** 12 * 60_000);
    await givenSessionAndGrant('year-6109', 'huge', T0 + 2 ** 31 * 60_000);
    await givenSessionAndGrant('eight-hours', 'normal', T0 + 8 * HOUR);

    await migrateToLatest(t.store.db);

    const users = await t.store.db.selectFrom('users').select(['id', 'durationMinutes']).orderBy('id').execute();
    expect(users).toEqual([
      { id: 'huge', durationMinutes: USER_SESSION_MINUTES_MAX },
      { id: 'normal', durationMinutes: 480 },
    ]);
    const sessions = await t.store.db.selectFrom('userSessions').select(['id', 'endsAt']).orderBy('id').execute();
    expect(sessions).toEqual([
      { id: 'beyond-dates', endsAt: T0 + YEAR_MS },
      { id: 'eight-hours', endsAt: T0 + 8 * HOUR },
      { id: 'year-6109', endsAt: T0 + YEAR_MS },
    ]);
    const grants = await t.store.db.selectFrom('grants').select(['id', 'expiresAt']).orderBy('id').execute();
    expect(grants).toEqual([
      { id: 'grant-beyond-dates', expiresAt: T0 + YEAR_MS },
      { id: 'grant-eight-hours', expiresAt: T0 + 8 * HOUR },
      { id: 'grant-year-6109', expiresAt: T0 + YEAR_MS },
    ]);
  });

  it('drops the old per-account locks and keeps the address blocks', async () => {
    for (const key of ['account:user:ada', 'account:admin:postern-admin', 'address:192.0.2.1']) {
      await t.store.db
        .insertInto('loginThrottle')
        .values({ key, failures: 5, windowStartedAt: T0, blockedUntil: T0 + 15 * 60_000 })
        .execute();
    }

    await migrateToLatest(t.store.db);

    expect(await t.store.db.selectFrom('loginThrottle').select('key').execute()).toEqual([
      { key: 'address:192.0.2.1' },
    ]);
    expect(await t.store.db.selectFrom('loginCeiling').selectAll().execute()).toEqual([]);
  });
});
