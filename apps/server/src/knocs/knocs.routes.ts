import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  EmptyResponse,
  KnocCreateBody,
  KnocCreatedResponse,
  KnocListResponse,
  KnocResponse,
  KnocUpdateBody,
  KnocWizardCreateBody,
  KnocWizardCreateResponse,
  KnocWizardUpdateBody,
  IdParams,
} from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { requireAdmin } from '../http/request-auth.js';
import { createKnoc, deleteKnoc, getKnoc, listKnocs, updateKnoc } from './knocs.service.js';
import { createKnocWithWizard, updateKnocWithWizard } from './knoc-wizard.service.js';

/**
 * /api/admin/acls: one knoc at a time on an existing backend. /api/admin/knocs: the same reads and
 * delete, plus the wizard's create (the whole creation sequence) and its update twin. Admins only;
 * creating and updating need a licence.
 */
export function registerKnocRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  // The admin scope (http/route-access.ts) has already refused anyone else; this names the admin.
  const actor = async (request: FastifyRequest) => ({ AdminName: (await requireAdmin(ctx, request)).admin.userName });

  for (const base of ['/api/admin/acls', '/api/admin/knocs']) {
    routes.get(base, { schema: { response: { 200: KnocListResponse } } }, async () => ({
      data: await listKnocs(ctx),
    }));

    routes.get(`${base}/:id`, { schema: { params: IdParams, response: { 200: KnocResponse } } }, async (request) => ({
      data: await getKnoc(ctx, request.params.id),
    }));

    routes.delete(
      `${base}/:id`,
      { schema: { params: IdParams, response: { 200: EmptyResponse } } },
      async (request) => {
        await deleteKnoc(ctx, await actor(request), request.params.id);
        return { data: null };
      },
    );
  }

  routes.post(
    '/api/admin/acls',
    { schema: { body: KnocCreateBody, response: { 200: KnocCreatedResponse } } },
    async (request) => ({ data: { ID: await createKnoc(ctx, await actor(request), request.body) } }),
  );

  routes.put(
    '/api/admin/acls/:id',
    { schema: { params: IdParams, body: KnocUpdateBody, response: { 200: KnocResponse } } },
    async (request) => ({ data: await updateKnoc(ctx, await actor(request), request.params.id, request.body) }),
  );

  routes.post(
    '/api/admin/knocs',
    { schema: { body: KnocWizardCreateBody, response: { 200: KnocWizardCreateResponse } } },
    async (request) => ({ data: await createKnocWithWizard(ctx, await actor(request), request.body) }),
  );

  routes.put(
    '/api/admin/knocs/:id',
    { schema: { params: IdParams, body: KnocWizardUpdateBody, response: { 200: KnocResponse } } },
    async (request) => ({
      data: await updateKnocWithWizard(ctx, await actor(request), request.params.id, request.body),
    }),
  );
}
