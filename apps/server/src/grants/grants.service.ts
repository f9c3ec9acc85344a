import type { Kysely } from 'kysely';
import {
  AuditActions,
  ErrorCodes,
  GrantStatus,
  type AclEntry,
  type BreakGlassGrantBody,
  type DiscoveredIp,
} from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import type { Database, GrantOrigin } from '../store/schema.js';
import type { User } from '../users/users.repo.js';
import type { UserSession } from '../auth/sessions.repo.js';
import type { Admin } from '../admins/admins.repo.js';
import { aclIdsOfUser } from '../groups/groups.repo.js';
import { usersAreLicensed } from '../licence/licence.js';
import { recordAudit } from '../audit/audit.js';
import { uuidv7 } from '../lib/ids.js';
import { ApiError, BadRequestError, ForbiddenError, NotFoundError } from '../http/errors.js';
import type { AgentEntryKey } from './agent-sync.js';
import { addressesHeldBySession, endGrants, insertGrant } from './grants.repo.js';
import { grantableKnocs, knocOfUserWithChildren, type GrantableKnoc } from './knoc-access.js';
import { addressAllowed, grantableAddress } from './ip-rules.js';
import { ownGrantableAddress, seenAddresses } from './seen-addresses.js';
import { aclEntry } from './acl-entry.js';

/** A signed-in user acting through their session from an address. */
export interface GrantCaller {
  user: User;
  session: UserSession;
  /** The address the request came from (see http/client-address.ts). */
  address: string;
}

/** How long an ended grant still shapes the status (Revoking, Revoked, error on revoke). */
const ENDED_GRANT_SHOWN_MS = 60 * 60_000;

/** At most this many discovered addresses are kept per session. */
const MAX_SESSION_IPS = 16;

class ConflictingStateError extends ApiError {
  constructor(code: (typeof ErrorCodes)[keyof typeof ErrorCodes]) {
    super(409, code);
  }
}

/** The knocs the user may see (directly or through groups), without passive+ children. */
async function knocsOfUser(db: Kysely<Database>, userId: string, now: number) {
  const knocs = await grantableKnocs(db, await aclIdsOfUser(db, userId), now);
  return knocs.filter((knoc) => knoc.backendType !== null);
}

/** A passive+ knoc's hidden children, granted and revoked with it. */
async function childrenOf(db: Kysely<Database>, aclId: string, now: number): Promise<GrantableKnoc[]> {
  const rows = await db.selectFrom('knocs').select('id').where('parentId', '=', aclId).execute();
  return grantableKnocs(
    db,
    rows.map((row) => row.id),
    now,
  );
}

/** When a grant made now must end: at the session's end, or sooner by the knoc's maximum. */
function expiryFor(knoc: GrantableKnoc, sessionEndsAt: number, now: number): number {
  const cap = knoc.maximumGrantDuration > 0 ? now + knoc.maximumGrantDuration * 1000 : Number.POSITIVE_INFINITY;
  return Math.min(sessionEndsAt, cap);
}

interface WantedAddress {
  ip: string;
  origin: GrantOrigin;
}

/**
 * The addresses a grant on this knoc covers for this caller, filtered by the knoc's rules, each in
 * canonical spelling. What the request names (the caller's own address, and with CGNATOpen the
 * addresses the browser reports) must pass seen-addresses.ts or the grant is a 400; addresses the
 * store already holds (a knoc's fixed IPs, addresses logged earlier) are checked again and skipped
 * when no grant may open them.
 */
async function addressesFor(
  ctx: AppContext,
  knoc: GrantableKnoc,
  caller: GrantCaller,
  discovered: readonly DiscoveredIp[],
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
    if (knoc.cgnatOpen) {
      for (const { ip } of await seenAddresses(ctx, caller.address, discovered, now)) {
        wanted.push({ ip, origin: 'discovered' });
      }
      const logged = await ctx.db
        .selectFrom('sessionIps')
        .select('ip')
        .where('sessionId', '=', caller.session.id)
        .execute();
      for (const { ip } of logged) stored(ip, 'discovered');
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

function keyOf(knoc: GrantableKnoc, ip: string): AgentEntryKey | null {
  return knoc.agentId === null || knoc.backendType === 'allowlist'
    ? null
    : { agentId: knoc.agentId, aclId: knoc.id, ip };
}

/**
 * Inserts grants for these addresses on the knoc and its children, skipping addresses the session
 * already holds there. Returns the device entries to tell agents about.
 */
async function insertGrants(
  trx: Kysely<Database>,
  knocs: readonly GrantableKnoc[],
  owner: { sessionId: string | null; userId: string | null; userName: string },
  addresses: readonly WantedAddress[],
  expiresAt: number,
  now: number,
): Promise<AgentEntryKey[]> {
  const keys: AgentEntryKey[] = [];
  for (const knoc of knocs) {
    const held =
      owner.sessionId === null ? new Set<string>() : await addressesHeldBySession(trx, owner.sessionId, knoc.id, now);
    for (const address of addresses) {
      if (held.has(address.ip)) continue;
      await insertGrant(trx, {
        id: uuidv7(now),
        aclId: knoc.id,
        sessionId: owner.sessionId,
        userId: owner.userId,
        userName: owner.userName,
        ip: address.ip,
        origin: address.origin,
        status: knoc.backendType === 'allowlist' ? GrantStatus.Published : GrantStatus.Pending,
        createdAt: now,
        expiresAt,
      });
      const key = keyOf(knoc, address.ip);
      if (key !== null) keys.push(key);
    }
  }
  return keys;
}

/** Ended this long ago or less, a grant still shapes the status (see aclEntry); older, it says nothing. */
function recentlyEnded(now: number) {
  return now - ENDED_GRANT_SHOWN_MS;
}

const STATUS_COLUMNS = ['aclId', 'status', 'error', 'expiresAt', 'endedAt', 'createdAt'] as const;

/**
 * The session's grants on these knocs that shape their ACL entries: running ones and those ended
 * within ENDED_GRANT_SHOWN_MS. Long-ended grants say nothing a Created status would not (Revoked and
 * Created both mean "ready to grant"); leaving them out keeps a long session's status call small.
 */
function grantsShapingStatus(db: Kysely<Database>, sessionId: string, aclIds: readonly string[], now: number) {
  return db
    .selectFrom('grants')
    .select(STATUS_COLUMNS)
    .where('sessionId', '=', sessionId)
    .where('aclId', 'in', aclIds)
    .where((eb) => eb.or([eb('endedAt', 'is', null), eb('endedAt', '>', recentlyEnded(now))]))
    .execute();
}

/**
 * What aclEntry needs for one knoc after a grant or revoke: the grants not ended and the last one
 * ended (it decides Revoking, Revoked or error on revoke) — the same entry grantsShapingStatus gives,
 * read through the (session, knoc, ended) index however often the session has granted and revoked.
 */
async function grantsShapingEntry(db: Kysely<Database>, sessionId: string, aclId: string, now: number) {
  const ofKnoc = () =>
    db.selectFrom('grants').select(STATUS_COLUMNS).where('sessionId', '=', sessionId).where('aclId', '=', aclId);
  const open = await ofKnoc().where('endedAt', 'is', null).execute();
  const lastEnded = await ofKnoc()
    .where('endedAt', '>', recentlyEnded(now))
    .orderBy('endedAt', 'desc')
    .limit(1)
    .execute();
  return [...open, ...lastEnded];
}

/** POST /api/grant: the user asks for access to a knoc from where they are. */
export async function grantAcl(
  ctx: AppContext,
  caller: GrantCaller,
  aclId: string,
  discovered: readonly DiscoveredIp[],
): Promise<AclEntry> {
  const now = ctx.clock.now();
  // A valid licence and users within its limit.
  if (!(await usersAreLicensed(ctx))) throw new ForbiddenError(ErrorCodes.licenceRequired);
  const found = await knocOfUserWithChildren(ctx.db, caller.user.id, aclId, now);
  if (found === undefined) throw new ApiError(404, ErrorCodes.aclNotAvailable);
  const { knoc, children } = found;
  if (!addressAllowed(knoc.ipExclusions, caller.address) && knoc.grantType.Type === 'userIp') {
    throw new ForbiddenError(ErrorCodes.aclDisabledForUser);
  }
  if (!knoc.agentOnline) throw new ConflictingStateError(ErrorCodes.agentOffline);
  const keys = await grantKnoc(ctx, knoc, children, caller, discovered, AuditActions.ClickToGrant, now);
  await ctx.agentSync.deliverEntryChanges(keys);
  return aclEntry(knoc, await grantsShapingEntry(ctx.db, caller.session.id, aclId, now), caller.address, now);
}

async function grantKnoc(
  ctx: AppContext,
  knoc: GrantableKnoc,
  children: readonly GrantableKnoc[],
  caller: GrantCaller,
  discovered: readonly DiscoveredIp[],
  action: typeof AuditActions.ClickToGrant | typeof AuditActions.Grant,
  now: number,
): Promise<AgentEntryKey[]> {
  const addresses = await addressesFor(ctx, knoc, caller, discovered, now);
  if (addresses.length === 0) throw new BadRequestError(undefined, ErrorCodes.noGrantableAddress);
  const expiresAt = expiryFor(knoc, caller.session.endsAt, now);
  return ctx.db.transaction().execute(async (trx) => {
    const keys = await insertGrants(
      trx,
      [knoc, ...children],
      { sessionId: caller.session.id, userId: caller.user.id, userName: caller.user.userName },
      addresses,
      expiresAt,
      now,
    );
    await recordAudit(trx, now, action, {
      UserName: caller.user.userName,
      AclDescription: knoc.description,
      IpAddress: addresses.map((address) => address.ip).join(', '),
    });
    return keys;
  });
}

/** DELETE /api/sessions/current/granted-acls/{id}: the user ends their access to a knoc. */
export async function revokeAcl(ctx: AppContext, caller: GrantCaller, aclId: string): Promise<AclEntry> {
  const now = ctx.clock.now();
  const found = await knocOfUserWithChildren(ctx.db, caller.user.id, aclId, now);
  if (found === undefined) throw new ApiError(404, ErrorCodes.aclNotAvailable);
  const { knoc, children } = found;
  const keys = await ctx.db.transaction().execute(async (trx) => {
    const ended = await endGrants(
      trx,
      { sessionIds: [caller.session.id], aclIds: [aclId, ...children.map((child) => child.id)] },
      now,
      'revoked',
    );
    await recordAudit(trx, now, AuditActions.ClickToRevoke, {
      UserName: caller.user.userName,
      AclDescription: knoc.description,
      IpAddress: caller.address,
    });
    return ended;
  });
  await ctx.agentSync.deliverEntryChanges(keys);
  return aclEntry(knoc, await grantsShapingEntry(ctx.db, caller.session.id, aclId, now), caller.address, now);
}

/**
 * The user's address changed since their grants were made (the status poll sees the new one):
 * move every 'user' grant to the new address with its expiry unchanged — a move never extends.
 */
async function followAddressChange(ctx: AppContext, caller: GrantCaller, knocs: readonly GrantableKnoc[], now: number) {
  const moved = await ctx.db
    .selectFrom('grants')
    .select(['id', 'aclId', 'ip', 'expiresAt'])
    .where('sessionId', '=', caller.session.id)
    .where('origin', '=', 'user')
    .where('endedAt', 'is', null)
    .where('expiresAt', '>', now)
    .where('ip', '!=', caller.address)
    .execute();
  const checked = grantableAddress(caller.address);
  // From an address no grant may open (loopback, say), the grants stay where they are until they end.
  if (moved.length === 0 || !('ip' in checked)) return;
  const byId = new Map(knocs.map((knoc) => [knoc.id, knoc]));
  const childIds = new Set(moved.map((row) => row.aclId).filter((id) => !byId.has(id)));
  for (const child of await grantableKnocs(ctx.db, [...childIds], now)) byId.set(child.id, child);
  const address = checked.ip;
  const keys = await ctx.db.transaction().execute(async (trx) => {
    const ended = await endGrants(trx, { grantIds: moved.map((row) => row.id) }, now, 'ip-changed');
    const added: AgentEntryKey[] = [];
    for (const row of moved) {
      const knoc = byId.get(row.aclId);
      if (knoc === undefined || !addressAllowed(knoc.ipExclusions, address)) continue;
      added.push(
        ...(await insertGrants(
          trx,
          [knoc],
          { sessionId: caller.session.id, userId: caller.user.id, userName: caller.user.userName },
          [{ ip: address, origin: 'user' }],
          Number(row.expiresAt),
          now,
        )),
      );
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

/** Knocs without ClickToGrant are granted when the session starts (at its first status call). */
async function grantAutomaticKnocs(ctx: AppContext, caller: GrantCaller, knocs: readonly GrantableKnoc[], now: number) {
  const automatic = knocs.filter((knoc) => !knoc.clickToGrant && knoc.agentOnline);
  if (automatic.length === 0) return;
  const touched = new Set(
    (
      await ctx.db
        .selectFrom('grants')
        .select('aclId')
        .distinct()
        .where('sessionId', '=', caller.session.id)
        .where(
          'aclId',
          'in',
          automatic.map((knoc) => knoc.id),
        )
        .execute()
    ).map((row) => row.aclId),
  );
  for (const knoc of automatic) {
    if (touched.has(knoc.id)) continue;
    if (knoc.grantType.Type === 'userIp' && !addressAllowed(knoc.ipExclusions, caller.address)) continue;
    try {
      const children = await childrenOf(ctx.db, knoc.id, now);
      ctx.agentSync.entriesChanged(await grantKnoc(ctx, knoc, children, caller, [], AuditActions.Grant, now));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
    }
  }
}

/**
 * The ACL entries of GET /api/status, for a licensed user (the status has checked; unlicensed
 * users see none). Before reading them it follows an address change and makes the grants of knocs
 * without ClickToGrant, so the status poll is also the session's heartbeat.
 */
export async function userAclEntries(ctx: AppContext, caller: GrantCaller): Promise<AclEntry[]> {
  const now = ctx.clock.now();
  const knocs = await knocsOfUser(ctx.db, caller.user.id, now);
  if (knocs.length === 0) return [];
  await followAddressChange(ctx, caller, knocs, now);
  await grantAutomaticKnocs(ctx, caller, knocs, now);
  const grants = await grantsShapingStatus(
    ctx.db,
    caller.session.id,
    knocs.map((knoc) => knoc.id),
    now,
  );
  return knocs.map((knoc) =>
    aclEntry(
      knoc,
      grants.filter((grant) => grant.aclId === knoc.id),
      caller.address,
      now,
    ),
  );
}

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
    const known = new Set(
      (await trx.selectFrom('sessionIps').select('ip').where('sessionId', '=', caller.session.id).execute()).map(
        (row) => row.ip,
      ),
    );
    const fresh = valid.filter((ip) => !known.has(ip)).slice(0, Math.max(0, MAX_SESSION_IPS - known.size));
    for (const ip of fresh) {
      await trx
        .insertInto('sessionIps')
        .values({ sessionId: caller.session.id, ip, port: ports.get(ip) ?? 0, createdAt: now })
        .execute();
    }
    if (fresh.length === 0) return [];
    const running = await trx
      .selectFrom('grants')
      .select(['aclId', 'expiresAt'])
      .where('sessionId', '=', caller.session.id)
      .where('origin', '=', 'user')
      .where('endedAt', 'is', null)
      .where('expiresAt', '>', now)
      .execute();
    const knocs = (await grantableKnocs(trx, [...new Set(running.map((row) => row.aclId))], now)).filter(
      (knoc) => knoc.cgnatOpen && knoc.grantType.Type === 'userIp',
    );
    const added: AgentEntryKey[] = [];
    for (const knoc of knocs) {
      const expiresAt = Math.max(...running.filter((row) => row.aclId === knoc.id).map((row) => Number(row.expiresAt)));
      const addresses = fresh
        .filter((ip) => addressAllowed(knoc.ipExclusions, ip))
        .map((ip) => ({ ip, origin: 'discovered' as const }));
      added.push(
        ...(await insertGrants(
          trx,
          [knoc],
          { sessionId: caller.session.id, userId: caller.user.id, userName: caller.user.userName },
          addresses,
          expiresAt,
          now,
        )),
      );
    }
    return added;
  });
  ctx.agentSync.entriesChanged(keys);
}

/**
 * POST /api/admin/acls/{id}/grants: an admin opens a knoc for an address without a user session
 * (break glass), for a limited time, with a reason that goes to the audit log.
 */
export async function breakGlassGrant(
  ctx: AppContext,
  admin: Admin,
  aclId: string,
  body: BreakGlassGrantBody,
): Promise<{ ID: string; IP: string; ExpiresAt: string }> {
  const now = ctx.clock.now();
  const [knoc] = await grantableKnocs(ctx.db, [aclId], now);
  if (knoc === undefined || knoc.backendType === null) throw new NotFoundError();
  // Break glass opens an address an admin names, but never one no grant may open (loopback, metadata…).
  const checked = grantableAddress(body.IP);
  if ('refused' in checked) throw new BadRequestError('IP', checked.refused);
  const ip = checked.ip;
  const expiresAt = expiryFor(knoc, now + body.Minutes * 60_000, now);
  const id = uuidv7(now);
  const children = await childrenOf(ctx.db, aclId, now);
  const keys = await ctx.db.transaction().execute(async (trx) => {
    const added: AgentEntryKey[] = [];
    for (const target of [knoc, ...children]) {
      await insertGrant(trx, {
        id: target === knoc ? id : uuidv7(now),
        aclId: target.id,
        sessionId: null,
        userId: null,
        userName: admin.userName,
        ip,
        origin: 'admin',
        status: target.backendType === 'allowlist' ? GrantStatus.Published : GrantStatus.Pending,
        createdAt: now,
        expiresAt,
      });
      const key = keyOf(target, ip);
      if (key !== null) added.push(key);
    }
    await recordAudit(trx, now, AuditActions.AdminBreakGlassGrant, {
      AdminName: admin.userName,
      AclDescription: knoc.description,
      IpAddress: ip,
      Description: body.Reason,
    });
    return added;
  });
  ctx.agentSync.entriesChanged(keys);
  return { ID: id, IP: ip, ExpiresAt: new Date(expiresAt).toISOString() };
}

/** DELETE /api/admin/acls/{id}/grants/{grantId}: ends a break-glass grant early. */
export async function endBreakGlassGrant(ctx: AppContext, admin: Admin, aclId: string, grantId: string): Promise<void> {
  const now = ctx.clock.now();
  const grant = await ctx.db
    .selectFrom('grants')
    .select(['id', 'ip', 'createdAt'])
    .where('id', '=', grantId)
    .where('aclId', '=', aclId)
    .where('origin', '=', 'admin')
    .executeTakeFirst();
  if (grant === undefined) throw new NotFoundError();
  const keys = await ctx.db.transaction().execute(async (trx) => {
    // The passive+ children got twin grants made in the same moment for the same address.
    const twins = await trx
      .selectFrom('grants')
      .innerJoin('knocs', 'knocs.id', 'grants.aclId')
      .select('grants.id')
      .where('knocs.parentId', '=', aclId)
      .where('grants.origin', '=', 'admin')
      .where('grants.ip', '=', grant.ip)
      .where('grants.createdAt', '=', grant.createdAt)
      .execute();
    const ended = await endGrants(trx, { grantIds: [grantId, ...twins.map((twin) => twin.id)] }, now, 'admin');
    await recordAudit(trx, now, AuditActions.Revoke, { AdminName: admin.userName, IpAddress: grant.ip });
    return ended;
  });
  ctx.agentSync.entriesChanged(keys);
}
