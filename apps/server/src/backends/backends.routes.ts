import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  BackendCreateBody,
  BackendListResponse,
  BackendResponse,
  BackendUpdateBody,
  EmptyResponse,
  Id,
} from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { requireAdmin } from '../auth/request-auth.js';
import { createBackend, deleteBackend, getBackend, listBackends, updateBackend } from './backends.service.js';

const BackendParams = z.object({ id: Id });

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
    { schema: { params: BackendParams, response: { 200: BackendResponse } } },
    async (request) => ({ data: await getBackend(ctx, request.params.id) }),
  );

  routes.post(
    '/api/admin/backends',
    { schema: { body: BackendCreateBody, response: { 200: BackendResponse } } },
    async (request) => ({ data: await createBackend(ctx, request.body, await actor(request)) }),
  );

  routes.put(
    '/api/admin/backends/:id',
    { schema: { params: BackendParams, body: BackendUpdateBody, response: { 200: BackendResponse } } },
    async (request) => ({ data: await updateBackend(ctx, request.params.id, request.body, await actor(request)) }),
  );

  routes.delete(
    '/api/admin/backends/:id',
    { schema: { params: BackendParams, response: { 200: EmptyResponse } } },
    async (request) => {
      await deleteBackend(ctx, request.params.id, await actor(request));
      return { data: null };
    },
  );
}
