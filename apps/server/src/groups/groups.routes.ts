import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  EmptyResponse,
  GroupCreateBody,
  GroupListResponse,
  GroupResponse,
  GroupUpdateBody,
  IdParams,
} from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { requireAdmin } from '../http/request-auth.js';
import { createGroup, deleteGroup, getGroup, listGroups, updateGroup } from './groups.service.js';

/** /api/admin/groups: list, get, create, update and delete groups. Admins only. */
export function registerGroupRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  // The admin scope (http/route-access.ts) has already refused anyone else; this names the admin.
  const actor = async (request: FastifyRequest) => ({ AdminName: (await requireAdmin(ctx, request)).admin.userName });

  routes.get('/api/admin/groups', { schema: { response: { 200: GroupListResponse } } }, async () => ({
    data: await listGroups(ctx),
  }));

  routes.get(
    '/api/admin/groups/:id',
    { schema: { params: IdParams, response: { 200: GroupResponse } } },
    async (request) => ({ data: await getGroup(ctx, request.params.id) }),
  );

  routes.post(
    '/api/admin/groups',
    { schema: { body: GroupCreateBody, response: { 200: GroupResponse } } },
    async (request) => ({ data: await createGroup(ctx, await actor(request), request.body) }),
  );

  routes.put(
    '/api/admin/groups/:id',
    { schema: { params: IdParams, body: GroupUpdateBody, response: { 200: GroupResponse } } },
    async (request) => ({ data: await updateGroup(ctx, await actor(request), request.params.id, request.body) }),
  );

  routes.delete(
    '/api/admin/groups/:id',
    { schema: { params: IdParams, response: { 200: EmptyResponse } } },
    async (request) => {
      await deleteGroup(ctx, await actor(request), request.params.id);
      return { data: null };
    },
  );
}
