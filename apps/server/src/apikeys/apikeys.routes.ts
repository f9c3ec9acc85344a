import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  ApiKeyCreateBody,
  ApiKeyCreateResponse,
  ApiKeyListResponse,
  ApiKeyResponse,
  ApiKeyUpdateBody,
  EmptyResponse,
  Id,
} from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { requireAdmin } from '../auth/request-auth.js';
import { createStandaloneApiKey, deleteApiKey, getApiKey, listApiKeys, updateApiKey } from './apikeys.service.js';

const ApiKeyParams = z.object({ id: Id });

/**
 * /api/admin/api-keys: list, get, create, update (AllowedFrom only) and delete. Admins only. The
 * plaintext key appears in the create answer and nowhere else.
 */
export function registerApiKeyRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  // The admin scope (http/route-access.ts) has already refused anyone else; this names the admin.
  const actor = async (request: FastifyRequest) => ({ AdminName: (await requireAdmin(ctx, request)).admin.userName });

  routes.get('/api/admin/api-keys', { schema: { response: { 200: ApiKeyListResponse } } }, async () => ({
    data: await listApiKeys(ctx),
  }));

  routes.get(
    '/api/admin/api-keys/:id',
    { schema: { params: ApiKeyParams, response: { 200: ApiKeyResponse } } },
    async (request) => ({ data: await getApiKey(ctx, request.params.id) }),
  );

  routes.post(
    '/api/admin/api-keys',
    { schema: { body: ApiKeyCreateBody, response: { 200: ApiKeyCreateResponse } } },
    async (request) => {
      const { record, plaintext } = await createStandaloneApiKey(ctx, request.body, await actor(request));
      return { data: { ...record, PlaintextKey: plaintext } };
    },
  );

  routes.put(
    '/api/admin/api-keys/:id',
    { schema: { params: ApiKeyParams, body: ApiKeyUpdateBody, response: { 200: ApiKeyResponse } } },
    async (request) => ({ data: await updateApiKey(ctx, request.params.id, request.body, await actor(request)) }),
  );

  routes.delete(
    '/api/admin/api-keys/:id',
    { schema: { params: ApiKeyParams, response: { 200: EmptyResponse } } },
    async (request) => {
      await deleteApiKey(ctx, request.params.id, await actor(request));
      return { data: null };
    },
  );
}
