import { createHash } from 'node:crypto';
import { setImmediate as setImmediatePromise } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import {
  AGENT_OFFLINE_AFTER_SECONDS,
  AgentCapabilities,
  AuditActions,
  ErrorCodes,
  type AgentCreateBody,
  type AgentRecord,
  type AgentUpdateBody,
  type AuditAction,
} from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import type { Database } from '../store/schema.js';
import { recordAudit } from '../audit/audit.js';
import { BadRequestError, ConflictError, NotFoundError } from '../errors.js';
import { uuidv7 } from '../lib/ids.js';
import { isoOrNull } from '../lib/rows.js';
import { isUniqueViolation } from '../lib/unique-violation.js';
import type { AuditActor } from '../audit/actor.js';
import { agentTokenSecretContext, generateAgentToken, hashAgentToken } from './agent-token.js';
import { agentKeyFingerprint } from './agent-key.js';
import {
  backendsOfAgents,
  countBackendsOfAgent,
  deleteAgentRow,
  findAgentRow,
  insertAgentRow,
  agentListVersion,
  agentRowsPage,
  renameAgentRow,
  replaceAgentToken,
  type AgentBackendRow,
  type AgentRow,
} from './agents.repo.js';

/** How many agents are read and turned into JSON between two yields to the event loop. */
const LIST_PAGE = 100;

/**
 * The strong ETag of the admin agent list, from one aggregate per table: no row is read, decrypted
 * or serialised, so polling an unchanged list costs two small queries.
 */
export async function agentListEtag(ctx: AppContext): Promise<string> {
  const version = await agentListVersion(ctx.db, ctx.clock.now() - AGENT_OFFLINE_AFTER_SECONDS * 1000);
  return `"agents-${createHash('sha256').update(JSON.stringify(version)).digest('base64url').slice(0, 32)}"`;
}

/**
 * The admin agent list as its `{data: […]}` JSON text, in pieces. Thousands of agents take a while
 * to read, open (each token is decrypted) and serialise, so it goes a page at a time (the page's
 * backends in one query), yielding to the event loop in between: grants and heartbeats never wait
 * for the list. The pieces are sent one after another (never encoded as one string of megabytes),
 * and only once all are built, so a store failure half-way is still an error answer, not a cut list.
 */
export async function agentListPieces(ctx: AppContext): Promise<string[]> {
  const now = ctx.clock.now();
  const pieces = ['{"data":['];
  let afterName: string | null = null;
  for (;;) {
    const rows = await agentRowsPage(ctx.db, afterName, LIST_PAGE);
    if (rows.length === 0) break;
    const backends = groupByAgent(
      await backendsOfAgents(
        ctx.db,
        rows.map((row) => row.id),
      ),
    );
    const records = rows.map((row) => toRecord(ctx, row, backends.get(row.id) ?? [], now));
    pieces.push(`${pieces.length === 1 ? '' : ','}${JSON.stringify(records).slice(1, -1)}`);
    if (rows.length < LIST_PAGE) break;
    afterName = rows[rows.length - 1]?.name ?? null;
    await setImmediatePromise();
  }
  pieces.push(']}');
  return pieces;
}

/** The whole agent list as one JSON text (tests and the benchmark; the route sends the pieces). */
export async function agentListJson(ctx: AppContext): Promise<string> {
  return (await agentListPieces(ctx)).join('');
}

/** One agent, or 404. */
export async function getAgent(ctx: AppContext, id: string): Promise<AgentRecord> {
  const row = await findAgentRow(ctx.db, id);
  if (row === null) throw new NotFoundError({ extra: 'agent' });
  return toRecord(ctx, row, await backendsOfAgents(ctx.db, [id]));
}

/**
 * Creates an agent with a fresh token and audits it. The token is the server's: a Token in the body
 * (older consoles sent one) is ignored. Names are unique: 409 err.agentNameExists.
 */
export async function createAgent(ctx: AppContext, actor: AuditActor, body: AgentCreateBody): Promise<AgentRecord> {
  const now = ctx.clock.now();
  const id = uuidv7(now);
  const token = generateAgentToken();
  await writeAgent(ctx, async (trx) => {
    await insertAgentRow(trx, {
      id,
      name: body.Name,
      tokenHash: hashAgentToken(token),
      tokenSecret: ctx.secrets.seal(token, agentTokenSecretContext(id)),
      createdAt: now,
      lastModifiedBy: actorName(actor),
    });
    await audit(trx, now, AuditActions.AgentCreated, actor, body.Name);
  });
  return getAgent(ctx, id);
}

/** Renames an agent. The token changes only through {@link rotateAgentToken}. */
export async function updateAgent(
  ctx: AppContext,
  actor: AuditActor,
  id: string,
  body: AgentUpdateBody,
): Promise<AgentRecord> {
  if (body.ID !== id) throw new BadRequestError({ code: ErrorCodes.mismatchingIds, extra: 'ID' });
  const now = ctx.clock.now();
  await writeAgent(ctx, async (trx) => {
    const current = await findAgentRow(trx, id);
    if (current === null) throw new NotFoundError({ extra: 'agent' });
    await renameAgentRow(trx, id, { name: body.Name, updatedAt: now, lastModifiedBy: actorName(actor) });
    const renamed = current.name === body.Name ? {} : { Description: `Renamed from ${current.name}` };
    await audit(trx, now, AuditActions.AgentUpdated, actor, body.Name, renamed);
  });
  return getAgent(ctx, id);
}

/**
 * Gives the agent a new token and drops its registered key; the old token stops working at once:
 * the connected agent is disconnected once the change is committed, and its reconnect with the old
 * token is refused. The first agent to connect with the new token enrols its key (the same host's
 * agent reinstalled with it keeps its key file and enrols that key again).
 */
export async function rotateAgentToken(ctx: AppContext, actor: AuditActor, id: string): Promise<AgentRecord> {
  const now = ctx.clock.now();
  const token = generateAgentToken();
  await writeAgent(ctx, async (trx) => {
    const current = await findAgentRow(trx, id);
    if (current === null) throw new NotFoundError({ extra: 'agent' });
    await replaceAgentToken(trx, id, {
      tokenHash: hashAgentToken(token),
      tokenSecret: ctx.secrets.seal(token, agentTokenSecretContext(id)),
      updatedAt: now,
      lastModifiedBy: actorName(actor),
    });
    // The audit entry says when a registered key went with the old token.
    const dropped =
      current.publicKey === null
        ? {}
        : { Description: `Registered key ${agentKeyFingerprint(current.publicKey)} dropped; the agent enrols again` };
    await audit(trx, now, AuditActions.AgentTokenRotated, actor, current.name, dropped);
  });
  ctx.agentSync.disconnectAgent(id, 'token rotated');
  return getAgent(ctx, id);
}

/** Deletes an agent that no backend uses (409 err.agentHasBackends otherwise), then disconnects it. */
export async function deleteAgent(ctx: AppContext, actor: AuditActor, id: string): Promise<void> {
  const now = ctx.clock.now();
  await writeAgent(ctx, async (trx) => {
    const current = await findAgentRow(trx, id);
    if (current === null) throw new NotFoundError({ extra: 'agent' });
    if ((await countBackendsOfAgent(trx, id)) > 0) throw new ConflictError({ code: ErrorCodes.agentHasBackends });
    await deleteAgentRow(trx, id);
    await audit(trx, now, AuditActions.AgentDeleted, actor, current.name);
  });
  ctx.agentSync.disconnectAgent(id, 'agent deleted');
}

/**
 * The address part of an agent's remote address: `203.0.113.5:4711` → `203.0.113.5`,
 * `[2001:db8::1]:4711` → `2001:db8::1`. A bare IPv6 address (several colons, no brackets) is kept
 * whole, since its last group is not a port.
 */
function stripPort(address: string): string {
  const value = address.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed !== null) return bracketed[1] ?? value;
  const ipv4WithPort = /^([^:]+):\d+$/.exec(value);
  if (ipv4WithPort !== null) return ipv4WithPort[1] ?? value;
  return value;
}

/** Connected now: a live connection, and a message from it recently enough. */
export function isAgentOnline(row: Pick<AgentRow, 'connectionId' | 'lastSeen'>, now: number): boolean {
  return row.connectionId !== null && row.lastSeen !== null && now - row.lastSeen <= AGENT_OFFLINE_AFTER_SECONDS * 1000;
}

function toRecord(
  ctx: AppContext,
  row: AgentRow,
  backends: readonly AgentBackendRow[],
  now = ctx.clock.now(),
): AgentRecord {
  return {
    ID: row.id,
    Name: row.name,
    Token: ctx.secrets.open(row.tokenSecret, agentTokenSecretContext(row.id)),
    LastSeen: isoOrNull(row.lastSeen),
    Version: row.version,
    ExternalIP: row.externalIp === null ? null : stripPort(row.externalIp),
    Capabilities: parseCapabilities(row.capabilities),
    Online: isAgentOnline(row, now),
    EnrolledAt: isoOrNull(row.enrolledAt),
    KeyFingerprint: row.publicKey === null ? null : agentKeyFingerprint(row.publicKey),
    Backends: backends.map((backend) => ({ ID: backend.id, Name: backend.name, Type: backend.type })),
    LastModifiedAt: new Date(row.updatedAt).toISOString(),
    LastModifiedBy: row.lastModifiedBy,
  };
}

/** The stored hello capabilities, or null when none were reported or they no longer parse. */
function parseCapabilities(text: string | null): AgentCapabilities | null {
  if (text === null) return null;
  try {
    const parsed = AgentCapabilities.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function groupByAgent(backends: readonly AgentBackendRow[]): Map<string, AgentBackendRow[]> {
  const byAgent = new Map<string, AgentBackendRow[]>();
  for (const backend of backends) {
    const list = byAgent.get(backend.agentId) ?? [];
    list.push(backend);
    byAgent.set(backend.agentId, list);
  }
  return byAgent;
}

function actorName(actor: AuditActor): string {
  return actor.AdminName ?? actor.UserName ?? '';
}

async function audit(
  trx: Kysely<Database>,
  now: number,
  action: AuditAction,
  actor: AuditActor,
  agentName: string,
  extra: { Description?: string } = {},
): Promise<void> {
  // Never the token: the audit log is readable by every admin and may be shipped to a GELF server.
  await recordAudit(trx, now, action, { ...actor, AgentName: agentName, ...extra });
}

/** Runs an agent write in a transaction and turns store-level refusals into the API's errors. */
async function writeAgent(ctx: AppContext, write: (trx: Kysely<Database>) => Promise<void>): Promise<void> {
  try {
    await ctx.db.transaction().execute(write);
  } catch (error) {
    // The name is the only unique value an admin chooses (token hashes of 256 random bits do not collide).
    if (isUniqueViolation(error)) throw new ConflictError({ code: ErrorCodes.agentNameExists, extra: 'Name' });
    // A backend attached between our count and the delete.
    if (isForeignKeyViolation(error)) throw new ConflictError({ code: ErrorCodes.agentHasBackends });
    throw error;
  }
}

function isForeignKeyViolation(error: unknown): boolean {
  if (!(error instanceof Error) || !('code' in error)) return false;
  return error.code === '23503' || error.code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}
