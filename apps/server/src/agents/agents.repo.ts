import type { Kysely, Selectable } from 'kysely';
import type { AgentsTable, Database } from '../store/schema.js';
import { inBatches } from '../store/batches.js';
import { preparedQuery } from '../store/prepared-query.js';
import { hashAgentToken } from './agent-token.js';

/** An agent row as the services use it; `tokenSecret` is still sealed. */
export type AgentRow = Omit<Selectable<AgentsTable>, 'generation'>;

/** What creating an agent writes; the hub fills the connection columns later. */
export interface NewAgentRow {
  id: string;
  name: string;
  tokenHash: string;
  tokenSecret: string;
  createdAt: number;
  lastModifiedBy: string;
}

/** A backend as listed on its agent. */
export interface AgentBackendRow {
  id: string;
  name: string;
  type: string;
  agentId: string;
}

const AGENT_COLUMNS = [
  'id',
  'name',
  'tokenHash',
  'tokenSecret',
  'version',
  'lastSeen',
  'externalIp',
  'capabilities',
  'connectionId',
  'createdAt',
  'updatedAt',
  'lastModifiedBy',
  'publicKey',
  'enrolledAt',
  'sealingKey',
  'sealingKeyRegisteredAt',
] as const;

/**
 * One page of agents by name, after `afterName` (names are unique, so the name alone is the page's
 * key): a large list is read a page at a time, never in one long synchronous SQLite read.
 */
export async function agentRowsPage(db: Kysely<Database>, afterName: string | null, size: number): Promise<AgentRow[]> {
  let query = db.selectFrom('agents').select(AGENT_COLUMNS).orderBy('name').limit(size);
  if (afterName !== null) query = query.where('name', '>', afterName);
  return query.execute();
}

export async function findAgentRow(db: Kysely<Database>, id: string): Promise<AgentRow | null> {
  return (await db.selectFrom('agents').select(AGENT_COLUMNS).where('id', '=', id).executeTakeFirst()) ?? null;
}

/**
 * The agent whose token this is, or null. The token is hashed and the hash looked up by the store's
 * unique index, so no comparison ever runs on the secret itself (nothing to time).
 */
/** Prepared, as the rest of an agent connection's set-up: a reconnecting fleet runs it thousands of times. */
const agentByTokenHash = preparedQuery((db, tokenHash: string) =>
  db.selectFrom('agents').select(AGENT_COLUMNS).where('tokenHash', '=', tokenHash),
);

export async function findAgentByToken(db: Kysely<Database>, token: string): Promise<AgentRow | null> {
  const [row] = await agentByTokenHash(db, hashAgentToken(token));
  return row ?? null;
}

export async function insertAgentRow(db: Kysely<Database>, agent: NewAgentRow): Promise<void> {
  await db
    .insertInto('agents')
    .values({ ...agent, updatedAt: agent.createdAt })
    .execute();
}

/** Renames an agent; true when it existed. */
export async function renameAgentRow(
  db: Kysely<Database>,
  id: string,
  fields: { name: string; updatedAt: number; lastModifiedBy: string },
): Promise<boolean> {
  const result = await db.updateTable('agents').set(fields).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Replaces the token (hash and sealed copy) and drops the registered key, so the next agent to
 * connect with the new token enrols afresh; true when the agent existed.
 */
export async function replaceAgentToken(
  db: Kysely<Database>,
  id: string,
  fields: { tokenHash: string; tokenSecret: string; updatedAt: number; lastModifiedBy: string },
): Promise<boolean> {
  const result = await db
    .updateTable('agents')
    .set({ ...fields, publicKey: null, enrolledAt: null, sealingKey: null, sealingKeyRegisteredAt: null })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** What deciding on a connection's key proof needs to know about the agent. */
export interface AgentCredentialsRow {
  id: string;
  name: string;
  tokenHash: string;
  publicKey: string | null;
  sealingKey: string | null;
}

/** The agent's token hash and registered keys, or null when the agent is gone. */
const agentCredentials = preparedQuery((db, id: string) =>
  db.selectFrom('agents').select(['id', 'name', 'tokenHash', 'publicKey', 'sealingKey']).where('id', '=', id),
);

export async function findAgentCredentials(db: Kysely<Database>, id: string): Promise<AgentCredentialsRow | null> {
  const [row] = await agentCredentials(db, id);
  return row ?? null;
}

/**
 * Registers the agent's key, only while the token is still the one the connection presented and
 * no key is registered: of two racing enrolments exactly one wins. True when this one did.
 */
export async function enrolAgentKey(
  db: Kysely<Database>,
  id: string,
  fields: { tokenHash: string; publicKey: string; enrolledAt: number },
): Promise<boolean> {
  const result = await db
    .updateTable('agents')
    .set({ publicKey: fields.publicKey, enrolledAt: fields.enrolledAt })
    .where('id', '=', id)
    .where('tokenHash', '=', fields.tokenHash)
    .where('publicKey', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** What an admitted connection's hello reports, recorded with the connection. */
export interface AgentHelloReport {
  agentVersion: string;
  capabilities: unknown;
  /** The highest generation the agent has applied. */
  appliedGeneration: number;
}

const admittedConnectionUpdate = preparedQuery(
  (
    db,
    id: string,
    connectionId: string,
    externalIp: string,
    lastSeen: number,
    version: string,
    capabilities: string,
    appliedGeneration: number,
    aboveApplied: number,
    generationBlock: number,
  ) =>
    db
      .updateTable('agents')
      .set((eb) => ({
        connectionId,
        externalIp,
        lastSeen,
        version,
        capabilities,
        generation: eb
          .case()
          .when('generation', '<', appliedGeneration)
          .then(aboveApplied)
          .else(eb('generation', '+', generationBlock))
          .end(),
      }))
      .where('id', '=', id)
      .returning('generation'),
);

/**
 * Records the connection now holding the agent, where it came from, that it was just seen and what
 * its hello reports, in one write, and
 * reserves the connection's first block of `generationBlock` generations above both the store's
 * and the agent's own (an agent ahead of the store, restored from a backup, would refuse everything
 * at or below what it applied). Returns the highest generation reserved.
 */
export async function recordAdmittedConnection(
  db: Kysely<Database>,
  id: string,
  fields: { connectionId: string; externalIp: string; lastSeen: number },
  report: AgentHelloReport,
  generationBlock: number,
): Promise<number> {
  const [row] = await admittedConnectionUpdate(
    db,
    id,
    fields.connectionId,
    fields.externalIp,
    fields.lastSeen,
    report.agentVersion,
    JSON.stringify(report.capabilities),
    report.appliedGeneration,
    report.appliedGeneration + generationBlock,
    generationBlock,
  );
  if (row === undefined) throw new Error(`agent ${id} is not in the store`);
  return Number(row.generation);
}

/** Deletes the agent row; true when it existed. Backends must have been detached first. */
export async function deleteAgentRow(db: Kysely<Database>, id: string): Promise<boolean> {
  const result = await db.deleteFrom('agents').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The backends attached to these agents ('all': to any agent), by name. */
export async function backendsOfAgents(db: Kysely<Database>, agentIds: readonly string[]): Promise<AgentBackendRow[]> {
  const query = db
    .selectFrom('backends')
    .select(['id', 'name', 'type', 'agentId'])
    .where('agentId', 'is not', null)
    .orderBy('name')
    .orderBy('id');
  const rows = [];
  for (const batch of inBatches(agentIds)) rows.push(...(await query.where('agentId', 'in', batch).execute()));
  return rows.map((row) => ({ id: row.id, name: row.name, type: row.type, agentId: row.agentId ?? '' }));
}

/** How many backends reference the agent. */
export async function countBackendsOfAgent(db: Kysely<Database>, agentId: string): Promise<number> {
  const row = await db
    .selectFrom('backends')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('agentId', '=', agentId)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/**
 * One row of aggregates that changes whenever anything the admin agent list shows changes: every
 * write to an agent moves updatedAt (admin edits), lastSeen (hello, heartbeats, connections) or
 * enrolledAt/publicKey (enrolment); a disconnect moves the connected count; the online count moves
 * when an agent's last message grows too old (`onlineSince`: the oldest lastSeen still online), the
 * one change that needs no write; backends count as theirs by their own updatedAt. Sums catch a
 * change to any row (the timestamps only grow), counts catch inserts and deletes.
 */
export async function agentListVersion(db: Kysely<Database>, onlineSince: number): Promise<unknown[]> {
  const agents = await db
    .selectFrom('agents')
    .select((eb) => [
      eb.fn.countAll<number | string>().as('count'),
      eb.fn.sum<number | string | null>('updatedAt').as('updatedSum'),
      eb.fn.max('updatedAt').as('updatedMax'),
      eb.fn.sum<number | string | null>('lastSeen').as('seenSum'),
      eb.fn.count<number | string>('connectionId').as('connected'),
      eb.fn.count<number | string>('publicKey').as('enrolled'),
      eb.fn.sum<number | string | null>('enrolledAt').as('enrolledSum'),
      eb.fn
        .count<number | string>(
          eb
            .case()
            .when(eb.and([eb('connectionId', 'is not', null), eb('lastSeen', '>=', onlineSince)]))
            .then(1)
            .end(),
        )
        .as('online'),
    ])
    .executeTakeFirstOrThrow();
  const backends = await db
    .selectFrom('backends')
    .where('agentId', 'is not', null)
    .select((eb) => [
      eb.fn.countAll<number | string>().as('count'),
      eb.fn.sum<number | string | null>('updatedAt').as('updatedSum'),
      eb.fn.max('updatedAt').as('updatedMax'),
    ])
    .executeTakeFirstOrThrow();
  // PostgreSQL answers bigint sums as strings, SQLite as numbers: one spelling for the tag.
  return [...Object.values(agents), ...Object.values(backends)].map((value) => (value === null ? null : String(value)));
}
