import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  ApiKeyCreateBody,
  ApiKeyCreateResponse,
  ApiKeyListResponse,
  ApiKeyResponse,
  ApiKeyUpdateBody,
  EmptyResponse,
  IdParams,
} from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { requireAdmin } from '../http/request-auth.js';
import { createStandaloneApiKey, deleteApiKey, getApiKey, listApiKeys, updateApiKey } from './apikeys.service.js';

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
    { schema: { params: IdParams, response: { 200: ApiKeyResponse } } },
    async (request) => ({ data: await getApiKey(ctx, request.params.id) }),
  );

  routes.post(
    '/api/admin/api-keys',
    { schema: { body: ApiKeyCreateBody, response: { 200: ApiKeyCreateResponse } } },
    async (request) => {
      const { record, plaintext } = await createStandaloneApiKey(ctx, await actor(request), request.body);
      return { data: { ...record, PlaintextKey: plaintext } };
    },
  );

  routes.put(
    '/api/admin/api-keys/:id',
    { schema: { params: IdParams, body: ApiKeyUpdateBody, response: { 200: ApiKeyResponse } } },
    async (request) => ({ data: await updateApiKey(ctx, await actor(request), request.params.id, request.body) }),
  );

  routes.delete(
    '/api/admin/api-keys/:id',
    { schema: { params: IdParams, response: { 200: EmptyResponse } } },
    async (request) => {
      await deleteApiKey(ctx, await actor(request), request.params.id);
      return { data: null };
    },
  );
}
