import type { Kysely } from 'kysely';
import {
  AuditActions,
  ErrorCodes,
  type AclConfig,
  type KnocCreateBody,
  type KnocRecord,
  type KnocUpdateBody,
} from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import type { Database } from '../store/schema.js';
import { recordAudit } from '../audit/audit.js';
import { BadRequestError, NotFoundError } from '../errors.js';
import { uuidv7 } from '../lib/ids.js';
import type { AuditActor } from '../audit/actor.js';
import { assertLicensed } from '../licence/licence.js';
import { endGrantsForKnocs } from '../grants/grants.repo.js';
import { findApiKeyRow } from '../apikeys/apikeys.repo.js';
import { countBackends, findBackendRow, type BackendWithAgent } from '../backends/backends.repo.js';
import {
  assertIpsetSetsAllowed,
  assertNftablesSetsAllowed,
  findAgentFactsById,
} from '../backends/agent-eligibility.js';
import { tellAgents } from '../backends/backends.service.js';
import { generateUriToken, prepareAclConfig } from './knoc-config.js';
import { knocRecords } from './knoc-record.js';
import {
  deleteKnocRows,
  findKnocRow,
  insertKnocRow,
  listKnocRows,
  placementsWithChildren,
  updateKnocRow,
  type KnocRow,
} from './knocs.repo.js';

/** A knoc as a create call gives it: the options and descriptive fields, its backend and config. */
export type KnocInput = Omit<KnocCreateBody, 'Config'> & { Config: AclConfig };

/** The knoc options and descriptive fields, without backend or config. */
export type KnocOptions = Omit<KnocCreateBody, 'BackendID' | 'Config'>;

/** What a knoc write changed, so the caller can tell the agents after commit. */
export interface KnocChange {
  knoc: KnocRow;
  /** The agents whose desired state changed. */
  agentIds: string[];
}

export interface CreateKnocOptions {
  /**
   * The wizard creates the allowlist's API key right after the knoc (the key's scope must name an
   * existing knoc): the "no key needs an IP restriction" rule then counts that key as present.
   */
  apiKeyFollows?: boolean;
}

/** Every knoc admins may see: those with HideFromAdmins (passive+ children) are left out. */
export async function listKnocs(ctx: AppContext): Promise<KnocRecord[]> {
  const rows = (await listKnocRows(ctx.db)).filter((row) => !row.hideFromAdmins);
  return knocRecords(ctx.db, rows);
}

/** One knoc by id, hidden from admins or not; 404 when unknown. */
export async function getKnoc(ctx: AppContext, id: string, db: Kysely<Database> = ctx.db): Promise<KnocRecord> {
  const row = await findKnocRow(db, id);
  const [record] = row === null ? [] : await knocRecords(db, [row]);
  if (record === undefined) throw new NotFoundError({ extra: 'knoc' });
  return record;
}

/** POST /api/admin/acls: one knoc on an existing backend. Needs a licence. */
export async function createKnoc(ctx: AppContext, actor: AuditActor, body: KnocInput): Promise<string> {
  await assertLicensed(ctx);
  const change = await ctx.db.transaction().execute((trx) => createKnocInTrx(trx, ctx, body, actor));
  tellAgents(ctx, change.agentIds);
  return change.knoc.id;
}

/** PUT /api/admin/acls/{id}: the knoc's fields and config; memberships stay. Needs a licence. */
export async function updateKnoc(
  ctx: AppContext,
  actor: AuditActor,
  id: string,
  body: KnocUpdateBody,
): Promise<KnocRecord> {
  if (body.ID !== id) throw new BadRequestError({ code: ErrorCodes.mismatchingIds, extra: 'ID' });
  await assertLicensed(ctx);
  const change = await ctx.db.transaction().execute((trx) => updateKnocInTrx(trx, ctx, id, body, actor));
  tellAgents(ctx, change.agentIds);
  return getKnoc(ctx, id);
}

/**
 * DELETE /api/admin/acls/{id} (and /knocs/{id}): ends the grants of the knoc and its children, deletes
 * them (children, grants and memberships by cascade), audits each, then tells their agents.
 */
export async function deleteKnoc(ctx: AppContext, actor: AuditActor, id: string): Promise<void> {
  const now = ctx.clock.now();
  const agentIds = await ctx.db.transaction().execute(async (trx) => {
    if ((await findKnocRow(trx, id)) === null) throw new NotFoundError({ extra: 'knoc' });
    const knocs = await placementsWithChildren(trx, [id]);
    await endGrantsForKnocs(
      trx,
      knocs.map((knoc) => knoc.id),
      now,
    );
    await deleteKnocRows(trx, [id]);
    for (const knoc of knocs) {
      await recordAudit(trx, now, AuditActions.KnocDeleted, { ...actor, AclDescription: knoc.description });
    }
    return knocs.map((knoc) => knoc.agentId);
  });
  tellAgents(ctx, agentIds);
}

/**
 * Creates a knoc inside the caller's transaction and audits it there. Rules: a backend must exist
 * (err.createBackendBeforeACL) and BackendID name one (err.noBackendSelected); the config's type is
 * the backend's (err.aclConfigMismatch); the parent exists and is no child itself (err.invalidParent);
 * plus the per-type rules of checkTypeRules. The server makes the UriToken (and an allowlist's Token).
 */
export async function createKnocInTrx(
  trx: Kysely<Database>,
  ctx: AppContext,
  body: KnocInput,
  actor: AuditActor,
  options: CreateKnocOptions = {},
): Promise<KnocChange> {
  const now = ctx.clock.now();
  if ((await countBackends(trx)) === 0)
    throw new BadRequestError({ code: ErrorCodes.createBackendBeforeACL, extra: 'BackendID' });
  const backend = await existingBackend(trx, body.BackendID);
  if (body.Config.type !== backend.type)
    throw new BadRequestError({ code: ErrorCodes.aclConfigMismatch, extra: backend.type });
  const parentId = normaliseParentId(body.ParentID);
  if (parentId !== null) await assertValidParent(trx, parentId, null);
  await checkTypeRules(trx, backend, body.Config, null, options);
  const id = uuidv7(now);
  const knoc: KnocRow = {
    ...rowOptions(body),
    id,
    parentId,
    createdAt: now,
    updatedAt: now,
    lastModifiedBy: actor.AdminName ?? '',
    backendId: backend.id,
    config: prepareAclConfig(ctx.secrets, await backendAgent(trx, backend), id, body.Config, null, backend.config),
    uriToken: generateUriToken(),
  };
  await insertKnocRow(trx, knoc);
  await recordAudit(trx, now, AuditActions.KnocCreated, { ...actor, AclDescription: knoc.description });
  return { knoc, agentIds: uniqueIds([backend.agentId]) };
}

/**
 * Updates a knoc inside the caller's transaction: the same rules as create, and the backend may
 * change only to one of the same type (err.backendTypeFixed). The UriToken and an allowlist's Token
 * are kept; sensitive variables sent back as RECORDED or empty keep their stored values.
 */
export async function updateKnocInTrx(
  trx: Kysely<Database>,
  ctx: AppContext,
  id: string,
  body: Omit<KnocUpdateBody, 'ID'>,
  actor: AuditActor,
): Promise<KnocChange> {
  const now = ctx.clock.now();
  const current = await findKnocRow(trx, id);
  if (current === null) throw new NotFoundError({ extra: 'knoc' });
  const backend = await existingBackend(trx, body.BackendID);
  const previousBackend = current.backendId === null ? null : await findBackendRow(trx, current.backendId);
  const currentType = previousBackend?.type ?? current.config.type;
  if (currentType !== null && backend.type !== currentType) {
    throw new BadRequestError({ code: ErrorCodes.backendTypeFixed, extra: `BackendID: ${currentType}` });
  }
  if (body.Config.type !== backend.type)
    throw new BadRequestError({ code: ErrorCodes.aclConfigMismatch, extra: backend.type });
  const parentId = normaliseParentId(body.ParentID);
  if (parentId !== null) await assertValidParent(trx, parentId, id);
  const previous = current.backendId === backend.id ? current.config : null;
  await checkTypeRules(trx, backend, body.Config, previous, {});
  const knoc: KnocRow = {
    ...current,
    ...rowOptions(body),
    parentId,
    updatedAt: now,
    lastModifiedBy: actor.AdminName ?? '',
    backendId: backend.id,
    config: prepareAclConfig(
      ctx.secrets,
      await backendAgent(trx, backend),
      id,
      body.Config,
      current.config,
      backend.config,
    ),
  };
  await updateKnocRow(trx, knoc);
  await recordAudit(trx, now, AuditActions.KnocUpdated, { ...actor, AclDescription: knoc.description });
  return { knoc, agentIds: uniqueIds([previousBackend?.agentId ?? null, backend.agentId]) };
}

/**
 * Applies the descriptive fields and knoc options to a knoc and keeps its backend, config, parent
 * and visibility: the wizard's update does this to a passive+ child's parent.
 */
export async function applyKnocOptionsInTrx(
  trx: Kysely<Database>,
  ctx: AppContext,
  current: KnocRow,
  options: KnocOptions,
  actor: AuditActor,
): Promise<KnocChange> {
  const now = ctx.clock.now();
  const knoc: KnocRow = {
    ...current,
    ...rowOptions(options),
    hideFromAdmins: current.hideFromAdmins,
    hideFromUsers: current.hideFromUsers,
    updatedAt: now,
    lastModifiedBy: actor.AdminName ?? '',
  };
  await updateKnocRow(trx, knoc);
  await recordAudit(trx, now, AuditActions.KnocUpdated, { ...actor, AclDescription: knoc.description });
  const backend = current.backendId === null ? null : await findBackendRow(trx, current.backendId);
  return { knoc, agentIds: uniqueIds([backend?.agentId ?? null]) };
}

/** The columns the knoc options and descriptive fields set. */
function rowOptions(options: KnocOptions) {
  return {
    description: options.Description,
    url: options.URL,
    icon: options.Icon,
    category: options.Category,
    hideFromAdmins: options.HideFromAdmins,
    hideFromUsers: options.HideFromUsers,
    clickToGrant: options.ClickToGrant,
    cgnatOpen: options.CGNATOpen,
    autoBrowseUsers: options.AutoBrowseUsers,
    maximumGrantDuration: options.MaximumGrantDuration,
    ipExclusions: options.IpExclusions,
    grantType: options.GrantType,
  };
}

async function existingBackend(db: Kysely<Database>, id: string): Promise<BackendWithAgent> {
  const backend = await findBackendRow(db, id);
  if (backend === null) throw new BadRequestError({ code: ErrorCodes.noBackendSelected, extra: 'BackendID' });
  return backend;
}

function normaliseParentId(parentId: string | null | undefined): string | null {
  return parentId === undefined || parentId === null || parentId === '' ? null : parentId;
}

/**
 * A parent must exist and be top level, and a knoc with children cannot become a child: one level
 * only (passive+ knocs and their firewall child). 400 err.invalidParent, Extra ParentID.
 */
async function assertValidParent(db: Kysely<Database>, parentId: string, childId: string | null): Promise<void> {
  const parent = await findKnocRow(db, parentId);
  const invalid = () => new BadRequestError({ code: ErrorCodes.invalidParent, extra: 'ParentID' });
  if (parent === null || parent.parentId !== null || parentId === childId) throw invalid();
  if (childId !== null) {
    const children = await placementsWithChildren(db, [childId]);
    if (children.some((knoc) => knoc.id !== childId)) throw invalid();
  }
}

/**
 * The rules that depend on the type:
 * - ipset: the set names are among the sets the backend's agent reported (err.ipsetNotAllowed);
 *   checked when they or the backend change, so a knoc stays editable if its agent is offline;
 * - nftables: the same, in the backend's family and table, of the right element type and with
 *   `flags timeout` (err.nftablesSetNotAllowed);
 * - allowlist: an ApiKeyId names an existing key, and without a key the list needs AllowAccessByIp
 *   with at least one address (err.allowlistAccessIpRestrictionFormRequired).
 */
async function checkTypeRules(
  db: Kysely<Database>,
  backend: BackendWithAgent,
  config: AclConfig,
  previous: KnocRow['config'] | null,
  options: CreateKnocOptions,
): Promise<void> {
  const { fields } = config;
  if (config.type === 'ipset' || config.type === 'nftables') {
    const unchanged =
      previous !== null &&
      previous.fields.V4SetName === fields.V4SetName &&
      previous.fields.V6SetName === fields.V6SetName;
    if (unchanged) return;
    const agent = backend.agentId === null ? null : await findAgentFactsById(db, backend.agentId);
    if (agent === null) throw new BadRequestError({ code: ErrorCodes.agentIdIncorrect, extra: 'AgentID' });
    if (config.type === 'ipset') assertIpsetSetsAllowed(agent, fields);
    else assertNftablesSetsAllowed(agent, backend.config, fields);
  }
  if (config.type === 'allowlist') {
    const apiKeyId = typeof fields.ApiKeyId === 'string' ? fields.ApiKeyId : '';
    if (apiKeyId !== '' && (await findApiKeyRow(db, apiKeyId)) === null) {
      throw new BadRequestError({ extra: 'Config.allowlist.ApiKeyId: unknown API key' });
    }
    const addresses = Array.isArray(fields.AllowedIpAddresses) ? fields.AllowedIpAddresses : [];
    const restricted = fields.AllowAccessByIp === true && addresses.length > 0;
    if (apiKeyId === '' && options.apiKeyFollows !== true && !restricted) {
      throw new BadRequestError({
        code: ErrorCodes.allowlistAccessIpRestrictionFormRequired,
        extra: 'Config.allowlist',
      });
    }
  }
}

function uniqueIds(ids: readonly (string | null)[]): string[] {
  return [...new Set(ids.filter((id): id is string => id !== null))];
}

/** The agent a knoc's sensitive variables are sealed to: its backend's (none for an allowlist). */
async function backendAgent(db: Kysely<Database>, backend: { agentId: string | null }) {
  return backend.agentId === null ? null : findAgentFactsById(db, backend.agentId);
}
