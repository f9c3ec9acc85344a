import { AuditActions, ErrorCodes, type AclEntry, type DiscoveredIp } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import type { GrantOrigin } from '../store/schema.js';
import { usersAreLicensed } from '../licence/licence.js';
import { recordAudit } from '../audit/audit.js';
import { ApiError, BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../errors.js';
import { UNKNOWN_BACKEND_TYPE } from '../metrics/server-metrics.js';
import type { AgentEntryKey } from './agent-sync.js';
import { endSessionGrantsOnKnocs, grantsShapingEntry, loggedSessionAddresses } from './grants.repo.js';
import { knocOfUserWithChildren, type GrantableKnoc } from './knoc-access.js';
import { addressAllowed, grantableAddress } from './ip-rules.js';
import { otherFamilyAddress, ownGrantableAddress, seenAddresses } from './seen-addresses.js';
import { aclEntry } from './acl-entry.js';
import { expiryFor, insertGrants, sessionOwner, type GrantCaller, type WantedAddress } from './new-grants.js';

/**
 * The addresses a grant on this knoc covers for this caller, filtered by the knoc's rules, each in
 * canonical spelling. What the request names (the caller's own address, its address of the other
 * family from the dual-stack discovery URLs, and with CGNATOpen the addresses the browser reports)
 * must pass seen-addresses.ts or the grant is a 400; addresses the store already holds (a knoc's
 * fixed IPs, addresses logged earlier) are checked again and skipped when no grant may open them.
 */
async function addressesFor(
  ctx: AppContext,
  knoc: GrantableKnoc,
  caller: GrantCaller,
  discovered: readonly DiscoveredIp[],
  dualStack: readonly DiscoveredIp[],
  now: number,
): Promise<WantedAddress[]> {
  const wanted: WantedAddress[] = [];
  const stored = (ip: string, origin: GrantOrigin) => {
    const checked = grantableAddress(ip);
    if ('ip' in checked) wanted.push({ ip: checked.ip, origin });
  };
  if (knoc.grantType.Type === 'specifiedIps') {
    for (const { Ip } of knoc.grantType.Ips) stored(Ip, 'fixed');
  } else {
    wanted.push({ ip: ownGrantableAddress(caller.address), origin: 'user' });
    const partner = await otherFamilyAddress(ctx, caller.address, dualStack, now);
    if (partner !== null) wanted.push({ ip: partner.ip, origin: 'discovered' });
    if (knoc.cgnatOpen) {
      for (const { ip } of await seenAddresses(ctx, caller.address, discovered, now)) {
        wanted.push({ ip, origin: 'discovered' });
      }
      for (const ip of await loggedSessionAddresses(ctx.db, caller.session.id)) stored(ip, 'discovered');
    }
  }
  const seen = new Set<string>();
  const result: WantedAddress[] = [];
  for (const entry of wanted) {
    if (seen.has(entry.ip) || !addressAllowed(knoc.ipExclusions, entry.ip)) continue;
    seen.add(entry.ip);
    result.push(entry);
  }
  return result;
}

/** The knoc the user asked about with its children, or the 404 a user gets for a knoc they may not see. */
async function knocOfCaller(ctx: AppContext, caller: GrantCaller, aclId: string, now: number) {
  const found = await knocOfUserWithChildren(ctx.db, caller.user.id, aclId, now);
  if (found === undefined) throw new NotFoundError({ code: ErrorCodes.aclNotAvailable });
  return found;
}

/**
 * POST /api/grant: the user asks for access to a knoc from where they are. `discovered` are the
 * CGNAT probes' answers (IPs), `dualStack` those of the IPv4-only and IPv6-only URLs (DualStackIPs).
 */
export async function grantAcl(
  ctx: AppContext,
  caller: GrantCaller,
  aclId: string,
  discovered: readonly DiscoveredIp[],
  dualStack: readonly DiscoveredIp[] = [],
): Promise<AclEntry> {
  const asked = { backendType: UNKNOWN_BACKEND_TYPE };
  try {
    return await grantAclOf(ctx, caller, aclId, { discovered, dualStack }, asked);
  } catch (error) {
    // Refused (4xx): counted as denied. A store outage or a fault is no decision about the grant.
    if (error instanceof ApiError && error.statusCode < 500) ctx.metrics.countGrants('denied', asked.backendType);
    throw error;
  }
}

/** grantAcl's work; `asked` learns the knoc's backend type once it is known (the metrics' label). */
async function grantAclOf(
  ctx: AppContext,
  caller: GrantCaller,
  aclId: string,
  reported: { discovered: readonly DiscoveredIp[]; dualStack: readonly DiscoveredIp[] },
  asked: { backendType: string },
): Promise<AclEntry> {
  const now = ctx.clock.now();
  // A valid licence and users within its limit.
  if (!(await usersAreLicensed(ctx))) throw new ForbiddenError({ code: ErrorCodes.licenceRequired });
  const { knoc, children } = await knocOfCaller(ctx, caller, aclId, now);
  asked.backendType = knoc.backendType ?? UNKNOWN_BACKEND_TYPE;
  if (!addressAllowed(knoc.ipExclusions, caller.address) && knoc.grantType.Type === 'userIp') {
    throw new ForbiddenError({ code: ErrorCodes.aclDisabledForUser });
  }
  if (!knoc.agentOnline) throw new ConflictError({ code: ErrorCodes.agentOffline });
  const { discovered, dualStack } = reported;
  const keys = await grantKnoc(ctx, knoc, children, caller, discovered, AuditActions.ClickToGrant, now, dualStack);
  await ctx.agentSync.deliverEntryChanges(keys);
  return aclEntry(knoc, await grantsShapingEntry(ctx.db, caller.session.id, aclId, now), caller.address, now);
}

/**
 * Grants the knoc and its children to the caller's session, with the audit entry (naming every
 * address opened), in one transaction. Returns the device entries to tell agents about; the caller
 * decides whether to wait.
 */
export async function grantKnoc(
  ctx: AppContext,
  knoc: GrantableKnoc,
  children: readonly GrantableKnoc[],
  caller: GrantCaller,
  discovered: readonly DiscoveredIp[],
  action: typeof AuditActions.ClickToGrant | typeof AuditActions.Grant,
  now: number,
  dualStack: readonly DiscoveredIp[] = [],
): Promise<AgentEntryKey[]> {
  const addresses = await addressesFor(ctx, knoc, caller, discovered, dualStack, now);
  if (addresses.length === 0) throw new BadRequestError({ code: ErrorCodes.noGrantableAddress });
  const expiresAt = expiryFor(knoc, caller.session.endsAt, now);
  return ctx.db.transaction().execute(async (trx) => {
    const { keys } = await insertGrants(trx, [knoc, ...children], sessionOwner(caller), addresses, expiresAt, now);
    await recordAudit(trx, now, action, {
      UserName: caller.user.userName,
      AclDescription: knoc.description,
      IpAddress: addresses.map((address) => address.ip).join(', '),
    });
    return keys;
  });
}

/**
 * DELETE /api/sessions/current/granted-acls/{id}: the user ends their access to a knoc, every address
 * the session holds on it (both families of a dual-stack grant); the audit entry names them.
 */
export async function revokeAcl(ctx: AppContext, caller: GrantCaller, aclId: string): Promise<AclEntry> {
  const now = ctx.clock.now();
  const { knoc, children } = await knocOfCaller(ctx, caller, aclId, now);
  const keys = await ctx.db.transaction().execute(async (trx) => {
    const ended = await endSessionGrantsOnKnocs(trx, caller.session.id, [knoc, ...children], now, 'revoked');
    await recordAudit(trx, now, AuditActions.ClickToRevoke, {
      UserName: caller.user.userName,
      AclDescription: knoc.description,
      IpAddress: revokedAddresses(caller.address, ended.addresses),
    });
    return ended.keys;
  });
  await ctx.agentSync.deliverEntryChanges(keys);
  return aclEntry(knoc, await grantsShapingEntry(ctx.db, caller.session.id, aclId, now), caller.address, now);
}

/** The addresses a revoke ended, the caller's own first; the caller's alone when it held none. */
function revokedAddresses(own: string, ended: readonly string[]): string {
  if (ended.length === 0) return own;
  return [...ended].sort((a, b) => Number(b === own) - Number(a === own) || a.localeCompare(b)).join(', ');
}
