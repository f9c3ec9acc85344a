import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { IdParams, KnocTestBody, KnocTestResponse } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { requireAdmin } from '../http/request-auth.js';
import { clientAddress } from '../lib/client-address.js';
import { testKnoc } from './knoc-test.service.js';

/**
 * "Test this knoc": POST /api/admin/knocs/{id}/test grants one address for a minute through the
 * knoc's agent, answers with the agent's report on the device, and has revoked it by then. Admins only.
 */
export function registerKnocTestRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.post(
    '/api/admin/knocs/:id/test',
    { schema: { params: IdParams, body: KnocTestBody, response: { 200: KnocTestResponse } } },
    async (request) => {
      const { admin } = await requireAdmin(ctx, request);
      const ip = request.body.IP === '' ? clientAddress(request) : request.body.IP;
      return { data: await testKnoc(ctx, admin, request.params.id, ip) };
    },
  );
}
