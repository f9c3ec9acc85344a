import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestStore, type TestStore } from '../../test-support/test-app.js';
import { bothStores } from '../../test-support/store-kinds.js';
import { givenSessionRow } from '../../test-support/v1-rows.js';
import { insertUser } from '../../users/users.repo.js';
import { migrateTo, migrateToLatest } from '../migrate.js';
import { MIGRATION_NAMES } from './index.js';

const THIS_MIGRATION = '0007-forget-unattested-session-addresses';
const T0 = Date.UTC(2026, 10, 22, 9, 0, 0);

describe.each(bothStores())(`migration ${THIS_MIGRATION} (%s)`, (kind) => {
  let t: TestStore;
  beforeEach(async () => {
    t = await createTestStore(kind, { migrate: false });
    await migrateTo(t.store.db, MIGRATION_NAMES[MIGRATION_NAMES.indexOf(THIS_MIGRATION) - 1] ?? '');
  });
  afterEach(async () => {
    await t.dispose();
  });

  it('forgets the addresses sessions reported before they needed an attestation', async () => {
    const db = t.store.db;
    await insertUser(db, {
      id: 'u1',
      name: 'u1',
      userName: 'u1',
      company: '',
      authType: 'local',
      passwordHash: null,
      ldapDn: null,
      durationMinutes: 480,
      sessionLimit: null,
      totpEnabled: false,
      totpVerified: false,
      disabled: false,
      validUntil: null,
      createdAt: T0,
    });
    const ctx = { db, clock: { now: () => T0 } } as unknown as Parameters<typeof givenSessionRow>[0];
    const sessionId = await givenSessionRow(ctx, 'u1');
    await db.insertInto('sessionIps').values({ sessionId, ip: '8.8.8.8', port: 443, createdAt: T0 }).execute();

    await migrateToLatest(db);

    expect(await db.selectFrom('sessionIps').selectAll().execute()).toEqual([]);
    expect(await db.selectFrom('userSessions').select('id').execute()).toEqual([{ id: sessionId }]);
  });
});
