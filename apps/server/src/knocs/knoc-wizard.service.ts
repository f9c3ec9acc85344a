import type { Kysely } from 'kysely';
import {
  ErrorCodes,
  type AclConfig,
  type KnocRecord,
  type KnocWizardCreateBody,
  type KnocWizardUpdateBody,
} from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import type { Database } from '../store/schema.js';
import { BadRequestError, NotFoundError } from '../errors.js';
import type { AuditActor } from '../audit/actor.js';
import { assertLicensed } from '../licence/licence.js';
import { endGrantsForUsersOnKnocs } from '../grants/grants.repo.js';
import { createBackendInTrx, tellAgents, updateBackendInTrx } from '../backends/backends.service.js';
import { attachWizardApiKey, type WizardCreatedKey } from './knoc-api-keys.js';
import { applyKnocOptionsInTrx, createKnocInTrx, getKnoc, updateKnocInTrx, type KnocOptions } from './knocs.service.js';
import {
  addKnocToGroups,
  addKnocToUsers,
  childrenOf,
  existingGroupIds,
  existingUserIds,
  findKnocRow,
  replaceKnocMemberships,
  updateKnocRow,
  usersWithAccess,
} from './knocs.repo.js';

/** What the wizard's create answers (KnocWizardCreateResponse's data). */
export interface WizardCreateResult {
  KnocID: string;
  ApiKey: WizardCreatedKey | null;
  AllowlistURL: string | null;
  Knoc: KnocRecord;
}

/**
 * POST /api/admin/knocs: the spec's creation sequence in one transaction, so a failure at any step
 * leaves nothing behind: the backend; the knoc; for an allowlist its API key (new, scoped to the
 * knoc, or an existing one given the scope); for passive+ a second backend and a hidden child knoc
 * under the first; then the knoc is given to each user and group chosen (unknown ids: 400). The
 * memberships go on the visible knoc only: the grant engine reaches a passive+ child through its
 * parent. Needs a licence. Agents are told after commit.
 */
export async function createKnocWithWizard(
  ctx: AppContext,
  actor: AuditActor,
  body: KnocWizardCreateBody,
): Promise<WizardCreateResult> {
  await assertLicensed(ctx);
  const { knocId, apiKey, agentIds, allowlistToken } = await ctx.db.transaction().execute(async (trx) => {
    const isAllowlist = body.Knoc.Config.type === 'allowlist';
    if (!isAllowlist && body.ApiKey.Option !== 'none') {
      throw new BadRequestError({ extra: 'ApiKey: only allowlist knocs are read with an API key' });
    }
    const backend = await createBackendInTrx(trx, ctx, body.Backend, actor);
    const config = isAllowlist ? withApiKeyId(body.Knoc.Config, body.ApiKey) : body.Knoc.Config;
    const knoc = await createKnocInTrx(
      trx,
      ctx,
      { ...body.Knoc, ParentID: null, BackendID: backend.backend.id, Config: config },
      actor,
      { apiKeyFollows: body.ApiKey.Option === 'new' },
    );
    const key = await attachWizardApiKey(trx, ctx, body.ApiKey, knoc.knoc.id, actor);
    if (body.ApiKey.Option === 'new') {
      // The key could only be made once the knoc its scope names existed; now the knoc names it.
      const { config: stored } = knoc.knoc;
      await updateKnocRow(trx, {
        ...knoc.knoc,
        config: { ...stored, fields: { ...stored.fields, ApiKeyId: key.apiKeyId } },
      });
    }
    const changed = [...backend.agentIds, ...knoc.agentIds];
    if (body.PassivePlus !== undefined) {
      const childBackend = await createBackendInTrx(trx, ctx, body.PassivePlus.Backend, actor);
      const child = await createKnocInTrx(
        trx,
        ctx,
        {
          ...body.Knoc,
          HideFromUsers: true,
          HideFromAdmins: true,
          ParentID: knoc.knoc.id,
          BackendID: childBackend.backend.id,
          Config: body.PassivePlus.Config,
        },
        actor,
      );
      changed.push(...childBackend.agentIds, ...child.agentIds);
    }
    const members = await checkedMembers(trx, body.UserIDs, body.GroupIDs);
    await addKnocToUsers(trx, knoc.knoc.id, members.userIds);
    await addKnocToGroups(trx, knoc.knoc.id, members.groupIds);
    const token = knoc.knoc.config.fields.Token;
    return {
      knocId: knoc.knoc.id,
      apiKey: key.created,
      agentIds: changed,
      allowlistToken: isAllowlist && typeof token === 'string' ? token : null,
    };
  });
  tellAgents(ctx, agentIds);
  return {
    KnocID: knocId,
    ApiKey: apiKey,
    AllowlistURL: allowlistToken === null ? null : allowlistUrl(ctx, knocId, allowlistToken),
    Knoc: await getKnoc(ctx, knocId),
  };
}

/**
 * PUT /api/admin/knocs/{id}: the update twin, in the spec's order, in one transaction: the knoc's
 * backend (Backend.ID must be the knoc's backend); then the knoc, its parent first when it is a
 * passive+ child: the parent takes the descriptive fields and options (not the child's hidden flags,
 * backend or config); the knoc keeps its parent and, as a child, its hidden flags. Last the
 * memberships of the parent (or the knoc) become exactly UserIDs and GroupIDs, and users who lose
 * access lose their grants on it and its children. Needs a licence.
 */
export async function updateKnocWithWizard(
  ctx: AppContext,
  actor: AuditActor,
  id: string,
  body: KnocWizardUpdateBody,
): Promise<KnocRecord> {
  if (body.Knoc.ID !== id) throw new BadRequestError({ code: ErrorCodes.mismatchingIds, extra: 'Knoc.ID' });
  await assertLicensed(ctx);
  const now = ctx.clock.now();
  const agentIds = await ctx.db.transaction().execute(async (trx) => {
    const current = await findKnocRow(trx, id);
    if (current === null) throw new NotFoundError({ extra: 'knoc' });
    if (current.backendId !== body.Backend.ID)
      throw new BadRequestError({ code: ErrorCodes.mismatchingIds, extra: 'Backend.ID' });
    const backend = await updateBackendInTrx(trx, ctx, body.Backend, actor);
    const changed = [...backend.agentIds];
    const parent = current.parentId === null ? null : await findKnocRow(trx, current.parentId);
    if (parent !== null) {
      const options: KnocOptions = { ...body.Knoc, ParentID: null };
      changed.push(...(await applyKnocOptionsInTrx(trx, ctx, parent, options, actor)).agentIds);
    }
    const knoc = await updateKnocInTrx(
      trx,
      ctx,
      id,
      {
        ...body.Knoc,
        ...(parent === null ? {} : { HideFromUsers: current.hideFromUsers, HideFromAdmins: current.hideFromAdmins }),
        ParentID: current.parentId,
        BackendID: body.Backend.ID,
      },
      actor,
    );
    changed.push(...knoc.agentIds);
    const holder = parent?.id ?? id;
    const members = await checkedMembers(trx, body.UserIDs, body.GroupIDs);
    const before = await usersWithAccess(trx, holder);
    await replaceKnocMemberships(trx, holder, members);
    const after = await usersWithAccess(trx, holder);
    const lost = [...before].filter((userId) => !after.has(userId));
    if (lost.length > 0) {
      const family = [holder, ...((await childrenOf(trx, [holder])).get(holder) ?? [])];
      await endGrantsForUsersOnKnocs(trx, family, lost, now);
    }
    return changed;
  });
  // The whole state of each agent is sent again, which also carries the revoked entries away.
  tellAgents(ctx, agentIds);
  return getKnoc(ctx, id);
}

/** The allowlist's address: the public URL (when configured) and the knoc's token. */
function allowlistUrl(ctx: AppContext, aclId: string, token: string): string {
  const base = (ctx.config.publicUrl ?? '').replace(/\/+$/, '');
  return `${base}/api/v1/allowlists/${aclId}/${token}.txt`;
}

/** The allowlist config with the wizard's key choice as its ApiKeyId ('' until a new key exists). */
function withApiKeyId(config: AclConfig, choice: KnocWizardCreateBody['ApiKey']): AclConfig {
  const apiKeyId = choice.Option === 'existing' ? choice.ID : '';
  return { type: config.type, fields: { ...config.fields, ApiKeyId: apiKeyId } };
}

/** The users and groups named, without repeats; any unknown id is 400 and rolls the wizard back. */
async function checkedMembers(
  db: Kysely<Database>,
  userIds: readonly string[],
  groupIds: readonly string[],
): Promise<{ userIds: string[]; groupIds: string[] }> {
  const users = [...new Set(userIds)];
  const groups = [...new Set(groupIds)];
  const knownUsers = await existingUserIds(db, users);
  const unknownUsers = users.filter((userId) => !knownUsers.has(userId));
  if (unknownUsers.length > 0)
    throw new BadRequestError({ extra: `UserIDs: unknown ${unknownUsers.slice(0, 5).join(', ')}` });
  const knownGroups = await existingGroupIds(db, groups);
  const unknownGroups = groups.filter((groupId) => !knownGroups.has(groupId));
  if (unknownGroups.length > 0) {
    throw new BadRequestError({ extra: `GroupIDs: unknown ${unknownGroups.slice(0, 5).join(', ')}` });
  }
  return { userIds: users, groupIds: groups };
}
