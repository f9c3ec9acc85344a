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
import { adminGuard, signedInAdmin } from './admin-guard.js';
import { createGroup, deleteGroup, getGroup, listGroups, updateGroup } from './groups.service.js';

const GroupParams = z.object({ id: Id });

/** /api/admin/groups: list, get, create, update and delete groups. Admins only. */
export function registerGroupRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const guard = adminGuard(ctx);
  const actor = (request: FastifyRequest) => ({ AdminName: signedInAdmin(request).admin.userName });

  routes.get('/api/admin/groups', { ...guard, schema: { response: { 200: GroupListResponse } } }, async () => ({
    data: await listGroups(ctx),
  }));

  routes.get(
    '/api/admin/groups/:id',
    { ...guard, schema: { params: GroupParams, response: { 200: GroupResponse } } },
    async (request) => ({ data: await getGroup(ctx, request.params.id) }),
  );

  routes.post(
    '/api/admin/groups',
    { ...guard, schema: { body: GroupCreateBody, response: { 200: GroupResponse } } },
    async (request) => ({ data: await createGroup(ctx, request.body, actor(request)) }),
  );

  routes.put(
    '/api/admin/groups/:id',
    { ...guard, schema: { params: GroupParams, body: GroupUpdateBody, response: { 200: GroupResponse } } },
    async (request) => ({ data: await updateGroup(ctx, request.params.id, request.body, actor(request)) }),
  );

  routes.delete(
    '/api/admin/groups/:id',
    { ...guard, schema: { params: GroupParams, response: { 200: EmptyResponse } } },
    async (request) => {
      await deleteGroup(ctx, request.params.id, actor(request));
      return { data: null };
    },
  );
}
