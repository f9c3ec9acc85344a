import type { Kysely } from 'kysely';
import { GrantStatus } from '@postern/protocol';
import type { Database, GrantOrigin } from '../store/schema.js';
import type { User } from '../users/users.repo.js';
import type { UserSession } from '../sessions/sessions.repo.js';
import { uuidv7 } from '../lib/ids.js';
import type { AgentEntryKey } from './agent-sync.js';
import { addressesHeldBySession, insertGrant } from './grants.repo.js';
import type { GrantableKnoc } from './knoc-access.js';

/** A signed-in user acting through their session from an address. */
export interface GrantCaller {
  user: User;
  session: UserSession;
  /** The address the request came from (see lib/client-address.ts). */
  address: string;
}

/** An address a new grant is to open, and why it is in the list. */
export interface WantedAddress {
  ip: string;
  origin: GrantOrigin;
}

/** Whom a new grant belongs to: a user's session, or (break glass) only the admin's name. */
export interface GrantOwner {
  sessionId: string | null;
  userId: string | null;
  userName: string;
}

/** The owner of grants the caller's session holds. */
export function sessionOwner(caller: GrantCaller): GrantOwner {
  return { sessionId: caller.session.id, userId: caller.user.id, userName: caller.user.userName };
}

/** When a grant made now must end: at `endsAt`, or sooner by the knoc's maximum. */
export function expiryFor(knoc: GrantableKnoc, endsAt: number, now: number): number {
  const cap = knoc.maximumGrantDuration > 0 ? now + knoc.maximumGrantDuration * 1000 : Number.POSITIVE_INFINITY;
  return Math.min(endsAt, cap);
}

/** The device entry a grant changes, or null where no agent holds one (allowlists are served by the server). */
function keyOf(knoc: GrantableKnoc, ip: string): AgentEntryKey | null {
  return knoc.agentId === null || knoc.backendType === 'allowlist'
    ? null
    : { agentId: knoc.agentId, aclId: knoc.id, ip };
}

/** What insertGrants made: the device entries to tell agents about, and the new grants' ids in order. */
export interface InsertedGrants {
  keys: AgentEntryKey[];
  ids: string[];
}

/**
 * Inserts grants for these addresses on the knocs (a knoc and its children), skipping addresses the
 * session already holds there. The one path every new grant takes, so status and device entries
 * follow the same rule whoever asked.
 */
export async function insertGrants(
  trx: Kysely<Database>,
  knocs: readonly GrantableKnoc[],
  owner: GrantOwner,
  addresses: readonly WantedAddress[],
  expiresAt: number,
  now: number,
): Promise<InsertedGrants> {
  const inserted: InsertedGrants = { keys: [], ids: [] };
  for (const knoc of knocs) {
    const held =
      owner.sessionId === null ? new Set<string>() : await addressesHeldBySession(trx, owner.sessionId, knoc.id, now);
    for (const address of addresses) {
      if (held.has(address.ip)) continue;
      const id = uuidv7(now);
      await insertGrant(trx, {
        id,
        aclId: knoc.id,
        sessionId: owner.sessionId,
        userId: owner.userId,
        userName: owner.userName,
        ip: address.ip,
        origin: address.origin,
        // The server publishes allowlists itself: there is no agent to wait for.
        status: knoc.backendType === 'allowlist' ? GrantStatus.Published : GrantStatus.Pending,
        createdAt: now,
        expiresAt,
      });
      inserted.ids.push(id);
      const key = keyOf(knoc, address.ip);
      if (key !== null) inserted.keys.push(key);
    }
  }
  return inserted;
}
