import type { Kysely } from 'kysely';
import {
  AGENT_ENTRY_TTL_MAX_SECONDS,
  isAgentKnoc,
  type AgentKnoc,
  type DesiredEntry,
  type EntryKey,
} from '@postern/protocol';
import { loadBackendConfigForAgent, toBackendRow } from '../backends/backends.repo.js';
import { loadKnocConfigForAgent } from '../knocs/knoc-config.js';
import { toKnocRow } from '../knocs/knocs.repo.js';
import type { HubContext } from '../app-context.js';
import type { Database } from '../store/schema.js';
import { preparedQuery } from '../store/prepared-query.js';
import { SecretUnreadableError } from '../secrets/secret-box.js';
import { reportUnreadableSecret } from '../secrets/unreadable-secrets.js';
import { recordKnocNotSent } from './results.js';

/**
 * What an agent must hold, read from the store. The store is the desired state: a running grant
 * (not ended, not expired) on a knoc whose backend the agent drives is an entry the device must
 * have; nothing else is.
 */

const CHUNK = 500;

/**
 * Seconds left until `expiresAt`, at least 1 (an entry about to expire is still sent as live) and at
 * most the longest session, whatever an old row says (the agent turns it into timers and device
 * timeouts; the server sends the entry again, with its remaining time, on every reconnect).
 */
function ttlSeconds(expiresAt: number, now: number): number {
  return Math.min(AGENT_ENTRY_TTL_MAX_SECONDS, Math.max(1, Math.ceil((expiresAt - now) / 1000)));
}

interface EntryRow {
  aclId: string;
  ip: string;
  expiresAt: number;
  userName: string;
  createdAt: number;
  /** A knoc test's grant: the agent is to read the device back (0/1 on SQLite). */
  verify: boolean | number;
}

/**
 * Folds running grants into one entry per (knoc, address): the latest expiry, the first user. The
 * entry carries that expiry as `endsAt` too: unlike the ttl it does not move when this server's
 * clock steps, so the agent raises an entry only when `endsAt` grew (a real extension).
 */
function foldEntries(rows: readonly EntryRow[], now: number): DesiredEntry[] {
  const byKey = new Map<string, EntryRow>();
  const firstUser = new Map<string, EntryRow>();
  const verified = new Set<string>();
  for (const row of rows) {
    const key = `${row.aclId} ${row.ip}`;
    if (row.verify === true || row.verify === 1) verified.add(key);
    const held = byKey.get(key);
    if (held === undefined || row.expiresAt > held.expiresAt) byKey.set(key, row);
    const first = firstUser.get(key);
    if (first === undefined || row.createdAt < first.createdAt) firstUser.set(key, row);
  }
  return [...byKey.entries()].map(([key, row]) => ({
    aclId: row.aclId,
    ip: row.ip,
    ttlSeconds: ttlSeconds(row.expiresAt, now),
    userName: firstUser.get(key)?.userName ?? row.userName,
    endsAt: row.expiresAt,
    ...(verified.has(key) ? { verify: true as const } : {}),
  }));
}

function runningGrantsOfAgent(db: Kysely<Database>, agentId: string, now: number) {
  return db
    .selectFrom('grants')
    .innerJoin('knocs', 'knocs.id', 'grants.aclId')
    .innerJoin('backends', 'backends.id', 'knocs.backendId')
    .select(['grants.aclId', 'grants.ip', 'grants.expiresAt', 'grants.userName', 'grants.createdAt', 'grants.verify'])
    .where('backends.agentId', '=', agentId)
    .where('grants.endedAt', 'is', null)
    .where('grants.expiresAt', '>', now);
}

const runningGrantsOfEntry = preparedQuery((db, agentId: string, aclId: string, ip: string, now: number) =>
  runningGrantsOfAgent(db, agentId, now).where('grants.aclId', '=', aclId).where('grants.ip', '=', ip),
);

const runningGrantsOfAgentPrepared = preparedQuery((db, agentId: string, now: number) =>
  runningGrantsOfAgent(db, agentId, now),
);

/** Every entry the agent must hold now. */
export async function desiredEntries(db: Kysely<Database>, agentId: string, now: number): Promise<DesiredEntry[]> {
  return foldEntries(await runningGrantsOfAgentPrepared(db, agentId, now), now);
}

/**
 * The state of some entries: those still held by a running grant with their ttl (`add`), the rest
 * absent (`remove`).
 */
export async function desiredForKeys(
  db: Kysely<Database>,
  agentId: string,
  keys: readonly EntryKey[],
  now: number,
): Promise<{ add: DesiredEntry[]; remove: EntryKey[] }> {
  const byAcl = new Map<string, Set<string>>();
  for (const key of keys) byAcl.set(key.aclId, (byAcl.get(key.aclId) ?? new Set()).add(key.ip));
  const rows: EntryRow[] = [];
  for (const [aclId, ips] of byAcl) {
    const list = [...ips];
    if (list.length === 1) {
      // One address on a knoc: a click's grant or revoke, answered by a prepared query.
      rows.push(...(await runningGrantsOfEntry(db, agentId, aclId, list[0] ?? '', now)));
      continue;
    }
    for (let i = 0; i < list.length; i += CHUNK) {
      rows.push(
        ...(await runningGrantsOfAgent(db, agentId, now)
          .where('grants.aclId', '=', aclId)
          .where('grants.ip', 'in', list.slice(i, i + CHUNK))
          .execute()),
      );
    }
  }
  const add = foldEntries(rows, now);
  const held = new Set(add.map((entry) => `${entry.aclId} ${entry.ip}`));
  const remove: EntryKey[] = [];
  for (const [aclId, ips] of byAcl) {
    for (const ip of ips) if (!held.has(`${aclId} ${ip}`)) remove.push({ aclId, ip });
  }
  return { add, remove };
}

// Prepared: every agent connection's first state reads them (a reconnecting fleet, thousands at once).
const backendsOfAgent = preparedQuery((db, agentId: string) =>
  db.selectFrom('backends').selectAll().where('agentId', '=', agentId),
);
const sealingKeyOfAgent = preparedQuery((db, agentId: string) =>
  db.selectFrom('agents').select('sealingKey').where('id', '=', agentId),
);
const knocsOfAgent = preparedQuery((db, agentId: string) =>
  db
    .selectFrom('knocs')
    .innerJoin('backends', 'backends.id', 'knocs.backendId')
    .selectAll('knocs')
    .where('backends.agentId', '=', agentId),
);

/** The knocs an agent can be sent, and those it cannot because a secret of theirs cannot be opened. */
export interface AgentKnocs {
  knocs: AgentKnoc[];
  /** aclId → the error its grants carry: what cannot be opened, and that an admin must re-enter it. */
  unreadable: Map<string, string>;
}

/**
 * The knocs the agent enforces, with their backend and knoc configs for the driver, secrets sealed
 * to the agent's key. A knoc whose secret cannot be sent (sealed to another agent key, or a legacy
 * value the server key does not open) is left out (the agent cannot drive it without), but not silently:
 * it is logged, audited in `db` (once an hour per secret) and listed in `unreadable`.
 */
export async function agentKnocs(ctx: HubContext, db: Kysely<Database>, agentId: string): Promise<AgentKnocs> {
  const unreadable = new Map<string, string>();
  const backends = await backendsOfAgent(db, agentId);
  if (backends.length === 0) return { knocs: [], unreadable };
  // Secrets go to the agent sealed to this key, and only to it.
  const [agent] = await sealingKeyOfAgent(db, agentId);
  const sealingKey = agent?.sealingKey ?? null;
  const knocs = await knocsOfAgent(db, agentId);
  const byId = new Map(backends.map((row) => [row.id, row]));
  const result: AgentKnoc[] = [];
  for (const knocRow of knocs) {
    const backendRow = byId.get(knocRow.backendId ?? '');
    if (backendRow === undefined) continue;
    try {
      const backend = toBackendRow(backendRow);
      const knoc = toKnocRow(knocRow);
      const agentKnoc = {
        aclId: knoc.id,
        name: knoc.description,
        url: knoc.url,
        backendId: backend.id,
        backendType: backend.type,
        backend: loadBackendConfigForAgent(ctx, backend, sealingKey),
        acl: loadKnocConfigForAgent(ctx, knoc, sealingKey),
      };
      // The agent refuses a whole state message with a knoc that does not fit its type: leave it out.
      if (!isAgentKnoc(agentKnoc)) throw new Error(`the stored configs do not fit a ${backend.type} knoc`);
      result.push(agentKnoc);
    } catch (error) {
      // One unreadable knoc must not stop the others.
      if (error instanceof SecretUnreadableError) {
        await reportUnreadableSecret(ctx, db, error, { AclDescription: knocRow.description });
        unreadable.set(knocRow.id, unreadableKnocError(error));
        continue;
      }
      ctx.logger.error({ err: error, aclId: knocRow.id }, 'cannot send a knoc to its agent');
    }
  }
  return { knocs: result, unreadable };
}

/**
 * The entries the agent can be sent. Those of knocs with an unreadable secret are held back (the
 * agent has no such knoc and could only answer so) and their running grants carry the error instead.
 */
export async function withoutUnreadableKnocs(
  db: Kysely<Database>,
  unreadable: ReadonlyMap<string, string>,
  entries: DesiredEntry[],
  now: number,
): Promise<DesiredEntry[]> {
  if (unreadable.size === 0) return entries;
  const heldBack = new Map<string, string>();
  const sendable = entries.filter((entry) => {
    const error = unreadable.get(entry.aclId);
    if (error !== undefined) heldBack.set(entry.aclId, error);
    return error === undefined;
  });
  for (const [aclId, error] of heldBack) await recordKnocNotSent(db, aclId, error, now);
  return sendable;
}

/** The error a grant on a knoc with an unreadable secret carries; it names the field, never a value. */
function unreadableKnocError(error: SecretUnreadableError): string {
  const owner = error.context.table === 'backends' ? "this knoc's backend" : 'this knoc';
  return `Postern cannot send the stored secret ${error.context.column} of ${owner} to its agent: ${error.reason}; an administrator must re-enter it`;
}
