import { z } from 'zod';
import {
  ACL_CONFIG_SCHEMAS,
  BACKEND_CONFIG_SCHEMAS,
  knocFields,
  type BackendType,
  type KnocCreateBody,
} from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { uuidv7 } from '../lib/ids.js';
import { BACKEND_SECRET_FIELDS, RECORDED } from '@postern/protocol';
import { sealBackendSecrets } from '../backends/backend-secrets.js';
import { findAgentFactsById } from '../backends/agent-eligibility.js';
import { findBackendRow, insertBackendRow } from '../backends/backends.repo.js';
import { generateUriToken, prepareAclConfig } from '../knocs/knoc-config.js';
import { insertKnocRow, type KnocRow } from '../knocs/knocs.repo.js';

let sequence = 0;

export interface GivenBackendOptions {
  type: BackendType;
  /** The type's fields as the API takes them (defaults filled in); secrets in plain text. */
  config?: Record<string, unknown>;
  /** The agent that drives it; none for allowlist. */
  agentId?: string | null;
  name?: string;
}

/**
 * A backend row written straight through the repository: the config is checked against the type's
 * schema and its secrets are sealed to its agent as the API does, or, when that agent has no sealing
 * key, with the server key as a store from before sealing to agents holds them; agent capability
 * rules are skipped.
 */
export async function givenBackend(
  ctx: AppContext,
  options: GivenBackendOptions,
): Promise<{ id: string; name: string; type: BackendType; agentId: string | null }> {
  sequence += 1;
  const now = ctx.clock.now();
  const id = uuidv7(now);
  const fields = BACKEND_CONFIG_SCHEMAS[options.type].parse(options.config ?? {}) as Record<string, unknown>;
  const backend = {
    id,
    name: options.name ?? `backend-${sequence}`,
    agentId: options.agentId ?? null,
    type: options.type,
    config: await sealAsStored(ctx, options.agentId ?? null, options.type, fields, id),
    createdAt: now,
    updatedAt: now,
    lastModifiedBy: 'test',
  };
  await insertBackendRow(ctx.db, backend);
  return { id, name: backend.name, type: backend.type, agentId: backend.agentId };
}

/** Knoc options and descriptive fields, as the API takes them (MaximumGrantDuration in seconds). */
export type GivenKnocOptions = Partial<z.input<z.ZodObject<typeof knocFields>>>;

export interface GivenEnforcedKnocOptions {
  backendId: string;
  type: BackendType;
  /** The type's ACL fields as the API takes them, e.g. { V4SetName: 'postern4' } for ipset. */
  aclConfig?: Record<string, unknown>;
  options?: GivenKnocOptions;
}

/**
 * A knoc on a backend, written straight through the repository (rules such as the agent's IP sets
 * are skipped): the config is checked against the type's schema, sensitive variables are sealed, and
 * the UriToken (and an allowlist's Token) are made as the API makes them.
 */
export async function givenEnforcedKnoc(ctx: AppContext, options: GivenEnforcedKnocOptions): Promise<KnocRow> {
  sequence += 1;
  const backend = await findBackendRow(ctx.db, options.backendId);
  if (backend === null) throw new Error(`givenEnforcedKnoc: no backend ${options.backendId}`);
  const fields = ACL_CONFIG_SCHEMAS[options.type].parse(options.aclConfig ?? {}) as Record<string, unknown>;
  const knoc: Omit<KnocCreateBody, 'BackendID' | 'Config'> = z
    .object(knocFields)
    .parse({ Description: `Knoc ${sequence}`, ...options.options });
  const now = ctx.clock.now();
  const id = uuidv7(now);
  const row: KnocRow = {
    id,
    description: knoc.Description,
    url: knoc.URL,
    icon: knoc.Icon,
    category: knoc.Category,
    parentId: knoc.ParentID === undefined || knoc.ParentID === '' ? null : knoc.ParentID,
    hideFromAdmins: knoc.HideFromAdmins,
    hideFromUsers: knoc.HideFromUsers,
    createdAt: now,
    updatedAt: now,
    lastModifiedBy: 'test',
    backendId: backend.id,
    clickToGrant: knoc.ClickToGrant,
    cgnatOpen: knoc.CGNATOpen,
    autoBrowseUsers: knoc.AutoBrowseUsers,
    maximumGrantDuration: knoc.MaximumGrantDuration,
    ipExclusions: knoc.IpExclusions,
    grantType: knoc.GrantType,
    config: await prepareAclAsStored(ctx, backend, id, { type: options.type, fields }),
    uriToken: generateUriToken(),
  };
  await insertKnocRow(ctx.db, row);
  return row;
}

/**
 * An ipset knoc (sets postern4 and postern6) on a backend of the agent, that `userId` may use
 * directly: the usual stage for a grant test.
 */
export async function givenIpsetKnocOfUser(
  ctx: AppContext,
  agentId: string,
  userId: string,
  options: GivenKnocOptions = {},
): Promise<KnocRow> {
  const backend = await givenBackend(ctx, { type: 'ipset', agentId });
  const knoc = await givenEnforcedKnoc(ctx, {
    backendId: backend.id,
    type: 'ipset',
    aclConfig: { V4SetName: 'postern4', V6SetName: 'postern6' },
    options,
  });
  await ctx.db.insertInto('userAcls').values({ userId, aclId: knoc.id }).execute();
  return knoc;
}

async function sealAsStored(
  ctx: AppContext,
  agentId: string | null,
  type: BackendType,
  fields: Record<string, unknown>,
  id: string,
): Promise<Record<string, unknown>> {
  const agent = agentId === null ? null : await findAgentFactsById(ctx.db, agentId);
  if ((agent?.sealingKey ?? null) !== null || BACKEND_SECRET_FIELDS[type].length === 0) {
    return sealBackendSecrets(agent, type, fields, id);
  }
  const stored = { ...fields };
  for (const field of BACKEND_SECRET_FIELDS[type]) {
    const value = fields[field];
    // As sealBackendSecrets: an empty secret (a script without a webhook) is none.
    if (typeof value === 'string' && value !== '') {
      stored[field] = ctx.secrets.seal(value, { table: 'backends', column: `config.${field}`, rowId: id });
    }
  }
  return stored;
}

/** The knoc's config as the API stores it, or, for an agent without a sealing key, as a store from before. */
async function prepareAclAsStored(
  ctx: AppContext,
  backend: { agentId: string | null; config: Record<string, unknown> },
  id: string,
  config: { type: BackendType; fields: Record<string, unknown> },
) {
  const agent = backend.agentId === null ? null : await findAgentFactsById(ctx.db, backend.agentId);
  if ((agent?.sealingKey ?? null) !== null || config.type !== 'script') {
    return prepareAclConfig(ctx.secrets, agent, id, config, null, backend.config);
  }
  const declared = new Set(
    (Array.isArray(backend.config.EnvVars) ? (backend.config.EnvVars as { Name: string; Sensitive?: boolean }[]) : [])
      .filter((variable) => variable.Sensitive === true)
      .map((variable) => variable.Name),
  );
  const envVars = (
    Array.isArray(config.fields.EnvVars)
      ? (config.fields.EnvVars as { Name: string; Value: string; Sensitive?: boolean }[])
      : []
  ).map((variable) => {
    const sensitive = variable.Sensitive === true || declared.has(variable.Name);
    if (!sensitive || variable.Value === RECORDED) return { ...variable, Sensitive: false, Encrypted: false };
    const context = { table: 'knocs', column: `config.EnvVars.${variable.Name}`, rowId: id };
    return { Name: variable.Name, Value: ctx.secrets.seal(variable.Value, context), Sensitive: true, Encrypted: true };
  });
  return { type: config.type, fields: { ...config.fields, EnvVars: envVars } };
}
