import { describe, expect, it } from 'vitest';
import { AuditActions } from '@postern/protocol';
import { bothStores } from '../../test-support/store-kinds.js';
import { useStoreBeforeMigration } from '../../test-support/migration-test.js';
import { recentAudit } from '../../audit/audit.js';

const THIS_MIGRATION = '0016-audit-parties';
const T0 = Date.UTC(2026, 10, 22, 9, 0, 0);

describe.each(bothStores())(`migration ${THIS_MIGRATION} (%s)`, (kind) => {
  const t = useStoreBeforeMigration(kind, THIS_MIGRATION);

  it('fills in the actor and target of the entries written before, so the filters find them', async () => {
    const db = t.db;
    // More than one round of the fill (500 rows), and one row whose detail cannot be read.
    const rows = Array.from({ length: 520 }, (_, index) => ({
      id: `0190a0b0-0000-7000-8000-${String(index).padStart(12, '0')}`,
      createdAt: T0 + index,
      action: index % 2 === 0 ? AuditActions.UserCreated : AuditActions.UserLogin,
      detail: JSON.stringify({ AdminName: 'ops', UserName: `user-${index}` }),
    }));
    rows.push({ id: '0190a0b0-0000-7000-8000-999999999999', createdAt: T0, action: 'UserLogin', detail: '{oops' });
    for (const row of rows) await db.insertInto('auditLog').values(row).execute();

    await t.migrateToLatest();

    const parties = await db.selectFrom('auditLog').select(['id', 'actor', 'target']).orderBy('id').execute();
    expect(parties[0]).toEqual({ id: rows[0]?.id, actor: 'ops', target: 'user-0' });
    // UserLogin's actor is the admin field when one is set (the usual order), with no target.
    expect(parties[1]).toEqual({ id: rows[1]?.id, actor: 'ops', target: null });
    expect(parties[518]).toEqual({ id: rows[518]?.id, actor: 'ops', target: 'user-518' });
    expect(parties.at(-1)).toEqual({ id: '0190a0b0-0000-7000-8000-999999999999', actor: null, target: null });
    // user-51 signed in (odd rows): it has no target, so only the users ops created match.
    expect((await recentAudit(db, 10, { target: 'user-51' })).map((entry) => entry.Target)).toEqual([
      'user-518',
      'user-516',
      'user-514',
      'user-512',
      'user-510',
    ]);
  });
});
