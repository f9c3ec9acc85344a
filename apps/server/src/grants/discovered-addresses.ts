import type { DiscoveredIp } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import type { AgentEntryKey } from './agent-sync.js';
import { insertSessionAddress, loggedSessionAddresses, runningUserGrants } from './grants.repo.js';
import { grantableKnocs } from './knoc-access.js';
import { addressAllowed } from './ip-rules.js';
import { seenAddresses } from './seen-addresses.js';
import { insertGrants, sessionOwner, type GrantCaller } from './new-grants.js';

/** At most this many discovered addresses are kept per session. */
const MAX_SESSION_IPS = 16;

/**
 * POST /api/log_ips: addresses the browser discovered; CGNATOpen grants extend to them at once. Every
 * address must be one the server has seen the caller use (seen-addresses.ts), or nothing is logged.
 */
export async function logIps(ctx: AppContext, caller: GrantCaller, ips: readonly DiscoveredIp[]): Promise<void> {
  const now = ctx.clock.now();
  const seen = await seenAddresses(ctx, caller.address, ips, now);
  const valid = [...new Set(seen.map((entry) => entry.ip))];
  const ports = new Map(seen.map((entry) => [entry.ip, entry.port]));
  if (valid.length === 0) return;
  const keys = await ctx.db.transaction().execute(async (trx) => {
    const known = new Set(await loggedSessionAddresses(trx, caller.session.id));
    const fresh = valid.filter((ip) => !known.has(ip)).slice(0, Math.max(0, MAX_SESSION_IPS - known.size));
    for (const ip of fresh) {
      await insertSessionAddress(trx, { sessionId: caller.session.id, ip, port: ports.get(ip) ?? 0, createdAt: now });
    }
    if (fresh.length === 0) return [];
    // Only the knocs the session holds for its own address extend; fixed-address knocs have nothing to follow.
    const running = await runningUserGrants(trx, caller.session.id, now);
    const knocs = (await grantableKnocs(trx, [...new Set(running.map((row) => row.aclId))], now)).filter(
      (knoc) => knoc.cgnatOpen && knoc.grantType.Type === 'userIp',
    );
    const added: AgentEntryKey[] = [];
    for (const knoc of knocs) {
      // The new addresses run as long as the longest grant the session has on the knoc.
      const expiresAt = Math.max(...running.filter((row) => row.aclId === knoc.id).map((row) => Number(row.expiresAt)));
      const addresses = fresh
        .filter((ip) => addressAllowed(knoc.ipExclusions, ip))
        .map((ip) => ({ ip, origin: 'discovered' as const }));
      added.push(...(await insertGrants(trx, [knoc], sessionOwner(caller), addresses, expiresAt, now)).keys);
    }
    return added;
  });
  ctx.agentSync.entriesChanged(keys);
}
