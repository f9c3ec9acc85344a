import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { bothStores } from '../../test-support/store-kinds.js';
import { useStoreBeforeMigration } from '../../test-support/migration-test.js';
import { isUniqueViolation } from '../../lib/unique-violation.js';

const THIS_MIGRATION = '0020-passkeys';
const T0 = Date.UTC(2026, 10, 22, 9, 0, 0);

function passkeyRow(id: string, realm: string, credentialId: string) {
  return {
    id,
    realm,
    accountId: 'a1',
    credentialId,
    publicKey: 'AAAA',
    counter: 4_294_967_295,
    transports: '[]',
    name: 'Key',
    rpId: 'localhost',
    backedUp: false,
    discoverable: true,
    createdAt: T0,
    lastUsedAt: null,
  };
}

describe.each(bothStores())(`migration ${THIS_MIGRATION} (%s)`, (kind) => {
  const t = useStoreBeforeMigration(kind, THIS_MIGRATION);

  it('keeps a credential ID once per realm, and the largest signature counter', async () => {
    await t.migrateToLatest();
    await t.db
      .insertInto('passkeys')
      .values(passkeyRow('p1', 'user', 'c1'))
      .execute();
    // The same authenticator's credential may be an admin's too: the realms are apart.
    await t.db
      .insertInto('passkeys')
      .values(passkeyRow('p2', 'admin', 'c1'))
      .execute();
    let refused = false;
    try {
      await t.db
        .insertInto('passkeys')
        .values(passkeyRow('p3', 'user', 'c1'))
        .execute();
    } catch (error) {
      refused = isUniqueViolation(error);
    }
    expect(refused).toBe(true);
    const row = await t.db.selectFrom('passkeys').select('counter').where('id', '=', 'p1').executeTakeFirstOrThrow();
    expect(Number(row.counter)).toBe(4_294_967_295);
  });

  it('is undone by its down migration', async () => {
    await t.migrateToLatest();
    await t.migrateToBefore();
    const probe = async (table: string) => {
      try {
        await sql`select 1 from ${sql.table(table)}`.execute(t.db);
        return true;
      } catch {
        return false;
      }
    };
    expect([await probe('passkeys'), await probe('webauthn_ceremonies')]).toEqual([false, false]);
  });
});
