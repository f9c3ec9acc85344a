import type { AclEntry } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { aclIdsOfUser } from '../groups/groups.repo.js';
import { grantsShapingStatus } from './grants.repo.js';
import { childIdsOf, grantableKnocs } from './knoc-access.js';
import { aclEntry } from './acl-entry.js';
import { followAddressChange } from './address-changes.js';
import { grantAutomaticKnocs } from './automatic-grants.js';
import type { GrantCaller } from './new-grants.js';

/**
 * The ACL entries of GET /api/status, for a licensed user (the status has checked; unlicensed
 * users see none). Before reading them it follows an address change and makes the grants of knocs
 * without ClickToGrant, so the status poll is also the session's heartbeat.
 */
export async function userAclEntries(ctx: AppContext, caller: GrantCaller): Promise<AclEntry[]> {
  const now = ctx.clock.now();
  // The knocs the user may see (directly or through groups); one without a backend enforces nothing.
  const knocs = (await grantableKnocs(ctx.db, await aclIdsOfUser(ctx.db, caller.user.id), now)).filter(
    (knoc) => knoc.backendType !== null,
  );
  if (knocs.length === 0) return [];
  await followAddressChange(ctx, caller, knocs, now);
  await grantAutomaticKnocs(ctx, caller, knocs, now);
  // A passive+ knoc's hidden child carries the firewall's refresh; its failures are the parent's.
  const parentOf = await childIdsOf(
    ctx.db,
    knocs.map((knoc) => knoc.id),
  );
  const grants = await grantsShapingStatus(
    ctx.db,
    caller.session.id,
    [...knocs.map((knoc) => knoc.id), ...parentOf.keys()],
    now,
  );
  return knocs.map((knoc) =>
    aclEntry(
      knoc,
      grants.filter((grant) => grant.aclId === knoc.id),
      caller.address,
      now,
      grants.filter((grant) => parentOf.get(grant.aclId) === knoc.id),
    ),
  );
}
