import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { aclIdsOfUser } from '../groups/groups.repo.js';
import type { AgentEntryKey } from './agent-sync.js';
import { endGrants } from './grants.repo.js';

/**
 * Ends the running grants these users hold on knocs they may no longer use (a knoc taken off the
 * user, the user taken out of a group, a group's knocs changed or the group deleted). Call it in
 * the transaction that changed the memberships; tell agents about the returned entries after commit.
 * Break-glass grants belong to no user and are left alone.
 */
export async function endGrantsWithoutAccess(
  trx: Kysely<Database>,
  userIds: readonly string[],
  now: number,
): Promise<AgentEntryKey[]> {
  const keys: AgentEntryKey[] = [];
  for (const userId of new Set(userIds)) {
    const running = await trx
      .selectFrom('grants')
      .select(['id', 'aclId'])
      .where('userId', '=', userId)
      .where('endedAt', 'is', null)
      .where('expiresAt', '>', now)
      .execute();
    if (running.length === 0) continue;
    const allowed = new Set(await aclIdsOfUser(trx, userId));
    // A passive+ child is reached through its parent.
    if (allowed.size > 0) {
      const children = await trx
        .selectFrom('knocs')
        .select('id')
        .where('parentId', 'in', [...allowed])
        .execute();
      for (const child of children) allowed.add(child.id);
    }
    const lost = running.filter((grant) => !allowed.has(grant.aclId)).map((grant) => grant.id);
    keys.push(...(await endGrants(trx, { grantIds: lost }, now, 'access-removed')));
  }
  return keys;
}
