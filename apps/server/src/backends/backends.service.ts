import type { Kysely } from 'kysely';
import {
  AuditActions,
  ErrorCodes,
  NO_AGENT_ID,
  type BackendConfig,
  type BackendRecord,
  type BackendType,
} from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import type { Database } from '../store/schema.js';
import { recordAudit } from '../audit/audit.js';
import { BadRequestError, ConflictError, NotFoundError } from '../errors.js';
import { uuidv7 } from '../lib/ids.js';
import { isUniqueViolation } from '../lib/unique-violation.js';
import type { AuditActor } from '../audit/actor.js';
import { endGrantsForKnocs } from '../grants/grants.repo.js';
import { placementsWithChildren, knocIdsOfBackend, listKnocRowsOfBackends } from '../knocs/knocs.repo.js';
import {
  assertAgentCanRun,
  assertIpsetSetsAllowed,
  assertNftablesSetsAllowed,
  findAgentFactsById,
  type AgentFacts,
} from './agent-eligibility.js';
import { maskBackendSecrets, mergeBackendUpdate, sealBackendSecrets } from './backend-secrets.js';
import {
  backendNameTaken,
  deleteBackendRow,
  findBackendRow,
  insertBackendRow,
  listBackendRows,
  updateBackendRow,
  type BackendRow,
  type BackendWithAgent,
} from './backends.repo.js';

/** A backend as a create call gives it (the body of POST /api/admin/backends, or a wizard's part). */
export interface BackendInput {
  Name: string;
  AgentID?: string | null | undefined;
  Config: BackendConfig;
}

/** A backend as an update gives it: secrets may be omitted or RECORDED. */
export interface BackendUpdateInput extends BackendInput {
  ID: string;
}

/** What a write changed, so the caller can tell the agents after commit. */
export interface BackendChange {
  backend: BackendRow;
  /** The agents whose desired state changed: the backend's old and new agent. */
  agentIds: string[];
}

export async function listBackends(ctx: AppContext): Promise<BackendRecord[]> {
  return (await listBackendRows(ctx.db)).map(toBackendRecord);
}

export async function getBackend(ctx: AppContext, id: string): Promise<BackendRecord> {
  const row = await findBackendRow(ctx.db, id);
  if (row === null) throw new NotFoundError({ extra: 'backend' });
  return toBackendRecord(row);
}

/** POST /api/admin/backends: one backend in its own transaction, then its agent is told. */
export async function createBackend(ctx: AppContext, actor: AuditActor, body: BackendInput): Promise<BackendRecord> {
  const change = await writeBackend(ctx, (trx) => createBackendInTrx(trx, ctx, body, actor));
  tellAgents(ctx, change.agentIds);
  return getBackend(ctx, change.backend.id);
}

/** PUT /api/admin/backends/{id}. */
export async function updateBackend(
  ctx: AppContext,
  actor: AuditActor,
  id: string,
  body: BackendUpdateInput,
): Promise<BackendRecord> {
  if (body.ID !== id) throw new BadRequestError({ code: ErrorCodes.mismatchingIds, extra: 'ID' });
  const change = await writeBackend(ctx, (trx) => updateBackendInTrx(trx, ctx, body, actor));
  tellAgents(ctx, change.agentIds);
  return getBackend(ctx, id);
}

/**
 * DELETE /api/admin/backends/{id}: ends the grants of its knocs (and their children), deletes it with
 * its knocs (by cascade) and audits each, then tells every agent concerned.
 */
export async function deleteBackend(ctx: AppContext, actor: AuditActor, id: string): Promise<void> {
  const now = ctx.clock.now();
  const agentIds = await ctx.db.transaction().execute(async (trx) => {
    const backend = await findBackendRow(trx, id);
    if (backend === null) throw new NotFoundError({ extra: 'backend' });
    const knocs = await placementsWithChildren(trx, await knocIdsOfBackend(trx, id));
    await endGrantsForKnocs(
      trx,
      knocs.map((knoc) => knoc.id),
      now,
    );
    await deleteBackendRow(trx, id);
    for (const knoc of knocs) {
      await recordAudit(trx, now, AuditActions.KnocDeleted, { ...actor, AclDescription: knoc.description });
    }
    await recordAudit(trx, now, AuditActions.BackendDeleted, { ...actor, Description: backend.name });
    return [backend.agentId, ...knocs.map((knoc) => knoc.agentId)];
  });
  tellAgents(ctx, agentIds);
}

/**
 * Runs a backend write in its own transaction. The name check runs before the write; should the store
 * ever enforce unique names itself, a race lost to another admin gets the same 409.
 */
async function writeBackend(
  ctx: AppContext,
  write: (trx: Kysely<Database>) => Promise<BackendChange>,
): Promise<BackendChange> {
  try {
    return await ctx.db.transaction().execute(write);
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError({ code: ErrorCodes.backendNameExists, extra: 'Name' });
    throw error;
  }
}

/**
 * Creates a backend inside the caller's transaction (the knoc wizard runs several writes in one) and
 * audits it there. Rules: AgentID names an existing agent for every type but allowlist (which stores
 * none), that agent can drive the type (capabilities and minimum version), and the name is unique.
 */
export async function createBackendInTrx(
  trx: Kysely<Database>,
  ctx: AppContext,
  body: BackendInput,
  actor: AuditActor,
): Promise<BackendChange> {
  const now = ctx.clock.now();
  const { type, fields } = body.Config;
  const agent = await resolveAgent(trx, type, body.AgentID);
  if (agent !== null) assertAgentCanRun(agent, type);
  if (await backendNameTaken(trx, body.Name))
    throw new ConflictError({ code: ErrorCodes.backendNameExists, extra: 'Name' });
  const id = uuidv7(now);
  const backend: BackendRow = {
    id,
    name: body.Name,
    agentId: agent?.id ?? null,
    type,
    config: sealBackendSecrets(agent, type, fields, id),
    createdAt: now,
    updatedAt: now,
    lastModifiedBy: actor.AdminName ?? '',
  };
  await insertBackendRow(trx, backend);
  await recordAudit(trx, now, AuditActions.BackendCreated, { ...actor, Description: backend.name });
  return { backend, agentIds: uniqueIds([backend.agentId]) };
}

/**
 * Updates a backend inside the caller's transaction. The type is fixed (400 err.backendTypeFixed);
 * secrets omitted or RECORDED are kept, but not when the address changed (err.reenterCredentials)
 * or the backend moves to another agent (err.reenterSecretsForAgent): they are sealed to the old one.
 * The agent's capabilities are checked when the agent changes: a refusal says the change cannot be
 * carried out, while an unchanged backend stays editable (renamed, say) whatever its agent reports
 * now. Moving to another agent also requires that agent to hold the IP sets of the ipset knocs.
 */
export async function updateBackendInTrx(
  trx: Kysely<Database>,
  ctx: AppContext,
  body: BackendUpdateInput,
  actor: AuditActor,
): Promise<BackendChange> {
  const now = ctx.clock.now();
  const current = await findBackendRow(trx, body.ID);
  if (current === null) throw new NotFoundError({ extra: 'backend' });
  const { type, fields } = body.Config;
  if (type !== current.type)
    throw new BadRequestError({ code: ErrorCodes.backendTypeFixed, extra: `Config: ${current.type}` });
  const agent = await resolveAgent(trx, type, body.AgentID);
  const agentId = agent?.id ?? null;
  if (agent !== null && agentId !== current.agentId) assertAgentCanRun(agent, type);
  // An nftables backend's table and family say where its knocs' sets are: moving either is checked too.
  const setsMoved =
    type === 'nftables' &&
    (fields.Table !== current.config.Table || (fields.Family ?? 'inet') !== (current.config.Family ?? 'inet'));
  if (agent !== null && (agentId !== current.agentId || setsMoved)) {
    await assertAgentHoldsSetsOfBackend(trx, agent, { ...current, config: { ...current.config, ...fields } });
  }
  if (await backendNameTaken(trx, body.Name, current.id)) {
    throw new ConflictError({ code: ErrorCodes.backendNameExists, extra: 'Name' });
  }
  // Stored secrets are sealed to the current agent: a move needs them re-entered.
  const moved = agentId !== current.agentId;
  const config = mergeBackendUpdate(agent, type, current.config, fields, current.id, moved);
  const lastModifiedBy = actor.AdminName ?? '';
  await updateBackendRow(trx, current.id, { name: body.Name, agentId, config, updatedAt: now, lastModifiedBy });
  await recordAudit(trx, now, AuditActions.BackendUpdated, { ...actor, Description: body.Name });
  return {
    backend: { ...current, name: body.Name, agentId, config, updatedAt: now, lastModifiedBy },
    agentIds: uniqueIds([current.agentId, agentId]),
  };
}

/**
 * The agent a backend of this type names: none for allowlist (whatever was sent), else an existing
 * agent or 400 err.agentIdIncorrect ('The agent ID provided is incorrect or missing').
 */
async function resolveAgent(
  db: Kysely<Database>,
  type: BackendType,
  agentId: string | null | undefined,
): Promise<AgentFacts | null> {
  if (type === 'allowlist') return null;
  const agent =
    agentId === undefined || agentId === null || agentId === NO_AGENT_ID ? null : await findAgentFactsById(db, agentId);
  if (agent === null) throw new BadRequestError({ code: ErrorCodes.agentIdIncorrect, extra: 'AgentID' });
  return agent;
}

async function assertAgentHoldsSetsOfBackend(db: Kysely<Database>, agent: AgentFacts, backend: BackendRow) {
  if (backend.type !== 'ipset' && backend.type !== 'nftables') return;
  for (const knoc of await listKnocRowsOfBackends(db, [backend.id])) {
    if (backend.type === 'ipset') assertIpsetSetsAllowed(agent, knoc.config.fields);
    else assertNftablesSetsAllowed(agent, backend.config, knoc.config.fields);
  }
}

/** The API's view of a backend: AgentID NO_AGENT_ID when none, secrets as RECORDED. */
function toBackendRecord(row: BackendWithAgent): BackendRecord {
  return {
    ID: row.id,
    Name: row.name,
    AgentID: row.agentId ?? NO_AGENT_ID,
    AgentName: row.agentName,
    Type: row.type,
    Config: { [row.type]: maskBackendSecrets(row.type, row.config) },
    LastModifiedAt: new Date(row.updatedAt).toISOString(),
    LastModifiedBy: row.lastModifiedBy,
  };
}

/**
 * After commit: asks the agent hub to resend the whole desired state of each agent named (nulls and
 * repeats dropped; nothing when none is left).
 */
export function tellAgents(ctx: Pick<AppContext, 'agentSync'>, agentIds: readonly (string | null)[]): void {
  const ids = uniqueIds(agentIds);
  if (ids.length > 0) ctx.agentSync.agentsChanged(ids);
}

function uniqueIds(ids: readonly (string | null)[]): string[] {
  return [...new Set(ids.filter((id): id is string => id !== null))];
}
