import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  EmptyResponse,
  GroupCreateBody,
  GroupListResponse,
  GroupResponse,
  GroupUpdateBody,
  Id,
} from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { requireAdmin } from '../auth/request-auth.js';
import { createGroup, deleteGroup, getGroup, listGroups, updateGroup } from './groups.service.js';

const GroupParams = z.object({ id: Id });

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
    { schema: { params: GroupParams, response: { 200: GroupResponse } } },
    async (request) => ({ data: await getGroup(ctx, request.params.id) }),
  );

  routes.post(
    '/api/admin/groups',
    { schema: { body: GroupCreateBody, response: { 200: GroupResponse } } },
    async (request) => ({ data: await createGroup(ctx, request.body, await actor(request)) }),
  );

  routes.put(
    '/api/admin/groups/:id',
    { schema: { params: GroupParams, body: GroupUpdateBody, response: { 200: GroupResponse } } },
    async (request) => ({ data: await updateGroup(ctx, request.params.id, request.body, await actor(request)) }),
  );

  routes.delete(
    '/api/admin/groups/:id',
    { schema: { params: GroupParams, response: { 200: EmptyResponse } } },
    async (request) => {
      await deleteGroup(ctx, request.params.id, await actor(request));
      return { data: null };
    },
  );
}
