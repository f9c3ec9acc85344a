import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  BackendCreateBody,
  BackendListResponse,
  BackendResponse,
  BackendUpdateBody,
  EmptyResponse,
  IdParams,
} from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { requireAdmin } from '../http/request-auth.js';
import { createBackend, deleteBackend, getBackend, listBackends, updateBackend } from './backends.service.js';

/** /api/admin/backends: list, get, create, update and delete backends. Admins only. */
export function registerBackendRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  // The admin scope (http/route-access.ts) has already refused anyone else; this names the admin.
  const actor = async (request: FastifyRequest) => ({ AdminName: (await requireAdmin(ctx, request)).admin.userName });

  routes.get('/api/admin/backends', { schema: { response: { 200: BackendListResponse } } }, async () => ({
    data: await listBackends(ctx),
  }));

  routes.get(
    '/api/admin/backends/:id',
    { schema: { params: IdParams, response: { 200: BackendResponse } } },
    async (request) => ({ data: await getBackend(ctx, request.params.id) }),
  );

  routes.post(
    '/api/admin/backends',
    { schema: { body: BackendCreateBody, response: { 200: BackendResponse } } },
    async (request) => ({ data: await createBackend(ctx, await actor(request), request.body) }),
  );

  routes.put(
    '/api/admin/backends/:id',
    { schema: { params: IdParams, body: BackendUpdateBody, response: { 200: BackendResponse } } },
    async (request) => ({ data: await updateBackend(ctx, await actor(request), request.params.id, request.body) }),
  );

  routes.delete(
    '/api/admin/backends/:id',
    { schema: { params: IdParams, response: { 200: EmptyResponse } } },
    async (request) => {
      await deleteBackend(ctx, await actor(request), request.params.id);
      return { data: null };
    },
  );
}
