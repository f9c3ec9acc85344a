import { describe, expect, it } from 'vitest';
import { bothStores } from '../../test-support/store-kinds.js';
import { useStoreBeforeMigration } from '../../test-support/migration-test.js';
import { givenSessionRow } from '../../test-support/v1-rows.js';
import { insertUser } from '../../users/users.repo.js';

const THIS_MIGRATION = '0007-forget-unattested-session-addresses';
const T0 = Date.UTC(2026, 10, 22, 9, 0, 0);

describe.each(bothStores())(`migration ${THIS_MIGRATION} (%s)`, (kind) => {
  const t = useStoreBeforeMigration(kind, THIS_MIGRATION);

  it('forgets the addresses sessions reported before they needed an attestation', async () => {
    const db = t.db;
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

    await t.migrateToLatest();

    expect(await db.selectFrom('sessionIps').selectAll().execute()).toEqual([]);
    expect(await db.selectFrom('userSessions').select('id').execute()).toEqual([{ id: sessionId }]);
  });
});
