import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  EmptyResponse,
  Id,
  KnocCreateBody,
  KnocCreatedResponse,
  KnocListResponse,
  KnocResponse,
  KnocUpdateBody,
  KnocWizardCreateBody,
  KnocWizardCreateResponse,
  KnocWizardUpdateBody,
} from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { requireAdmin } from '../auth/request-auth.js';
import { createKnoc, deleteKnoc, getKnoc, listKnocs, updateKnoc } from './knocs.service.js';
import { createKnocWithWizard, updateKnocWithWizard } from './knoc-wizard.service.js';

const KnocParams = z.object({ id: Id });

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

    routes.get(`${base}/:id`, { schema: { params: KnocParams, response: { 200: KnocResponse } } }, async (request) => ({
      data: await getKnoc(ctx, request.params.id),
    }));

    routes.delete(
      `${base}/:id`,
      { schema: { params: KnocParams, response: { 200: EmptyResponse } } },
      async (request) => {
        await deleteKnoc(ctx, request.params.id, await actor(request));
        return { data: null };
      },
    );
  }

  routes.post(
    '/api/admin/acls',
    { schema: { body: KnocCreateBody, response: { 200: KnocCreatedResponse } } },
    async (request) => ({ data: { ID: await createKnoc(ctx, request.body, await actor(request)) } }),
  );

  routes.put(
    '/api/admin/acls/:id',
    { schema: { params: KnocParams, body: KnocUpdateBody, response: { 200: KnocResponse } } },
    async (request) => ({ data: await updateKnoc(ctx, request.params.id, request.body, await actor(request)) }),
  );

  routes.post(
    '/api/admin/knocs',
    { schema: { body: KnocWizardCreateBody, response: { 200: KnocWizardCreateResponse } } },
    async (request) => ({ data: await createKnocWithWizard(ctx, request.body, await actor(request)) }),
  );

  routes.put(
    '/api/admin/knocs/:id',
    { schema: { params: KnocParams, body: KnocWizardUpdateBody, response: { 200: KnocResponse } } },
    async (request) => ({
      data: await updateKnocWithWizard(ctx, request.params.id, request.body, await actor(request)),
    }),
  );
}
