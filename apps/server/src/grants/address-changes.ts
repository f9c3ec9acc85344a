import { AuditActions } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { recordAudit } from '../audit/audit.js';
import type { AgentEntryKey } from './agent-sync.js';
import { endGrants, runningUserGrants } from './grants.repo.js';
import { grantableKnocs, type GrantableKnoc } from './knoc-access.js';
import { addressAllowed, grantableAddress } from './ip-rules.js';
import { insertGrants, sessionOwner, type GrantCaller } from './new-grants.js';

/**
 * The user's address changed since their grants were made (the status poll sees the new one):
 * move every 'user' grant to the new address with its expiry unchanged — a move never extends.
 * `knocs` are the user's knocs; the children the moved grants are on are read here.
 */
export async function followAddressChange(
  ctx: AppContext,
  caller: GrantCaller,
  knocs: readonly GrantableKnoc[],
  now: number,
): Promise<void> {
  const moved = await runningUserGrants(ctx.db, caller.session.id, now, caller.address);
  const checked = grantableAddress(caller.address);
  // From an address no grant may open (loopback, say), the grants stay where they are until they end.
  if (moved.length === 0 || !('ip' in checked)) return;
  const byId = new Map(knocs.map((knoc) => [knoc.id, knoc]));
  const childIds = new Set(moved.map((row) => row.aclId).filter((id) => !byId.has(id)));
  for (const child of await grantableKnocs(ctx.db, [...childIds], now)) byId.set(child.id, child);
  const address = checked.ip;
  const owner = sessionOwner(caller);
  const keys = await ctx.db.transaction().execute(async (trx) => {
    const ended = await endGrants(trx, { grantIds: moved.map((row) => row.id) }, now, 'ip-changed');
    const added: AgentEntryKey[] = [];
    for (const row of moved) {
      const knoc = byId.get(row.aclId);
      if (knoc === undefined || !addressAllowed(knoc.ipExclusions, address)) continue;
      const wanted = [{ ip: address, origin: 'user' as const }];
      added.push(...(await insertGrants(trx, [knoc], owner, wanted, Number(row.expiresAt), now)).keys);
    }
    await recordAudit(trx, now, AuditActions.Grant, {
      UserName: caller.user.userName,
      IpAddress: address,
      Description: `address changed from ${[...new Set(moved.map((row) => row.ip))].join(', ')}`,
    });
    return [...ended, ...added];
  });
  ctx.agentSync.entriesChanged(keys);
}
