import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';

/** Running grants (not ended, not expired) per backend type: one grouped count. */
export async function activeGrantsByBackendType(
  db: Kysely<Database>,
  now: number,
): Promise<{ backendType: string; count: number }[]> {
  const rows = await db
    .selectFrom('grants')
    .innerJoin('knocs', 'knocs.id', 'grants.aclId')
    .leftJoin('backends', 'backends.id', 'knocs.backendId')
    .select(['backends.type', (eb) => eb.fn.countAll<string | number>().as('count')])
    .where('grants.endedAt', 'is', null)
    .where('grants.expiresAt', '>', now)
    .groupBy('backends.type')
    .execute();
  return rows.map((row) => ({ backendType: row.type ?? 'none', count: Number(row.count) }));
}

/** Sessions running now (signed in or waiting for their second factor), users' and admins'. */
export async function activeSessionsByRole(
  db: Kysely<Database>,
  now: number,
): Promise<{ role: 'user' | 'admin'; count: number }[]> {
  const count = async (table: 'userSessions' | 'adminSessions') => {
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<string | number>().as('count'))
      .where('endedAt', 'is', null)
      .where('endsAt', '>', now)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  };
  return [
    { role: 'user', count: await count('userSessions') },
    { role: 'admin', count: await count('adminSessions') },
  ];
}
