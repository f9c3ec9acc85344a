import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  AclEntryResponse,
  BreakGlassGrantBody,
  BreakGlassGrantResponse,
  EmptyResponse,
  GrantBody,
  Id,
  LogIpsBody,
  IdParams,
} from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { requireAdmin, requireUser } from '../http/request-auth.js';
import { clientAddress } from '../lib/client-address.js';
import { grantAcl, revokeAcl } from './grant-requests.service.js';
import { logIps } from './discovered-addresses.js';
import { breakGlassGrant, endBreakGlassGrant } from './break-glass.service.js';
import type { GrantCaller } from './new-grants.js';

/** The user's grant calls: grant, revoke, and the addresses IP discovery found. */
export function registerGrantRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const caller = async (request: Parameters<typeof clientAddress>[0]): Promise<GrantCaller> => {
    const { user, session } = await requireUser(ctx, request);
    return { user, session, address: clientAddress(request) };
  };

  routes.post('/api/grant', { schema: { body: GrantBody, response: { 200: AclEntryResponse } } }, async (request) => ({
    data: await grantAcl(ctx, await caller(request), request.body.ACLID, request.body.IPs, request.body.DualStackIPs),
  }));

  routes.delete(
    '/api/sessions/current/granted-acls/:id',
    { schema: { params: IdParams, response: { 200: AclEntryResponse } } },
    async (request) => ({ data: await revokeAcl(ctx, await caller(request), request.params.id) }),
  );

  routes.post('/api/log_ips', { schema: { body: LogIpsBody, response: { 200: EmptyResponse } } }, async (request) => {
    await logIps(ctx, await caller(request), request.body.IPs);
    return { data: null };
  });
}

/** The admin's audited break-glass grant on a knoc, and its early end. */
export function registerBreakGlassRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.post(
    '/api/admin/acls/:id/grants',
    { schema: { params: IdParams, body: BreakGlassGrantBody, response: { 200: BreakGlassGrantResponse } } },
    async (request) => {
      const { admin } = await requireAdmin(ctx, request);
      return { data: await breakGlassGrant(ctx, admin, request.params.id, request.body) };
    },
  );

  routes.delete(
    '/api/admin/acls/:id/grants/:grantId',
    { schema: { params: IdParams.extend({ grantId: Id }), response: { 200: EmptyResponse } } },
    async (request) => {
      const { admin } = await requireAdmin(ctx, request);
      await endBreakGlassGrant(ctx, admin, request.params.id, request.params.grantId);
      return { data: null };
    },
  );
}
