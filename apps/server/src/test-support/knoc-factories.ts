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
import { sealBackendSecrets } from '../backends/backend-secrets.js';
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
 * schema and its secrets are sealed as the API does, but agent capability rules are skipped.
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
    config: sealBackendSecrets(ctx.secrets, options.type, fields, id),
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
    config: prepareAclConfig(ctx.secrets, id, { type: options.type, fields }, null, backend.config),
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
