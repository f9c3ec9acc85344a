import { AuditActions, type BreakGlassGrantBody } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import type { Admin } from '../admins/admins.repo.js';
import { recordAudit } from '../audit/audit.js';
import { BadRequestError, NotFoundError } from '../errors.js';
import { adminGrant, endGrants, twinAdminGrantIds } from './grants.repo.js';
import { childKnocs, grantableKnocs } from './knoc-access.js';
import { grantableAddress } from './ip-rules.js';
import { expiryFor, insertGrants } from './new-grants.js';

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
  if ('refused' in checked) throw new BadRequestError({ code: checked.refused, extra: 'IP' });
  const ip = checked.ip;
  const expiresAt = expiryFor(knoc, now + body.Minutes * 60_000, now);
  const children = await childKnocs(ctx.db, aclId, now);
  const { keys, ids } = await ctx.db.transaction().execute(async (trx) => {
    // No session: the grant belongs to no user and ends only by its expiry or an admin.
    const owner = { sessionId: null, userId: null, userName: admin.userName };
    const inserted = await insertGrants(trx, [knoc, ...children], owner, [{ ip, origin: 'admin' }], expiresAt, now);
    await recordAudit(trx, now, AuditActions.AdminBreakGlassGrant, {
      AdminName: admin.userName,
      AclDescription: knoc.description,
      IpAddress: ip,
      Description: body.Reason,
    });
    return inserted;
  });
  ctx.agentSync.entriesChanged(keys);
  // The knoc's own grant comes first (without a session insertGrants skips nothing); the children's
  // twins are ended with it (endBreakGlassGrant).
  const [id] = ids;
  if (id === undefined) throw new Error('break-glass grant was not inserted');
  return { ID: id, IP: ip, ExpiresAt: new Date(expiresAt).toISOString() };
}

/** DELETE /api/admin/acls/{id}/grants/{grantId}: ends a break-glass grant early. */
export async function endBreakGlassGrant(ctx: AppContext, admin: Admin, aclId: string, grantId: string): Promise<void> {
  const now = ctx.clock.now();
  const grant = await adminGrant(ctx.db, grantId, aclId);
  if (grant === undefined) throw new NotFoundError();
  const keys = await ctx.db.transaction().execute(async (trx) => {
    // The passive+ children got twin grants made in the same moment for the same address.
    const twins = await twinAdminGrantIds(trx, aclId, grant);
    const ended = await endGrants(trx, { grantIds: [grantId, ...twins] }, now, 'admin');
    await recordAudit(trx, now, AuditActions.Revoke, { AdminName: admin.userName, IpAddress: grant.ip });
    return ended;
  });
  ctx.agentSync.entriesChanged(keys);
}
