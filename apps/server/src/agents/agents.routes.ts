import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  AgentCreateBody,
  AgentListResponse,
  AgentResponse,
  AgentUpdateBody,
  EmptyResponse,
  IdParams,
} from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { requireAdmin } from '../http/request-auth.js';
import { createAgent, deleteAgent, getAgent, listAgents, rotateAgentToken, updateAgent } from './agents.service.js';

/** /api/admin/agents: list, get, create, update, delete, rotate the token (admins only). */
export function registerAgentRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  // The admin scope (http/route-access.ts) has already refused anyone else; this names the admin.
  const actor = async (request: FastifyRequest) => ({ AdminName: (await requireAdmin(ctx, request)).admin.userName });

  routes.get('/api/admin/agents', { schema: { response: { 200: AgentListResponse } } }, async () => ({
    data: await listAgents(ctx),
  }));

  routes.get(
    '/api/admin/agents/:id',
    { schema: { params: IdParams, response: { 200: AgentResponse } } },
    async (request) => ({ data: await getAgent(ctx, request.params.id) }),
  );

  routes.post(
    '/api/admin/agents',
    { schema: { body: AgentCreateBody, response: { 200: AgentResponse } } },
    async (request) => ({ data: await createAgent(ctx, await actor(request), request.body) }),
  );

  routes.put(
    '/api/admin/agents/:id',
    { schema: { params: IdParams, body: AgentUpdateBody, response: { 200: AgentResponse } } },
    async (request) => ({ data: await updateAgent(ctx, await actor(request), request.params.id, request.body) }),
  );

  routes.delete(
    '/api/admin/agents/:id',
    { schema: { params: IdParams, response: { 200: EmptyResponse } } },
    async (request) => {
      await deleteAgent(ctx, await actor(request), request.params.id);
      return { data: null };
    },
  );

  routes.post(
    '/api/admin/agents/:id/token',
    { schema: { params: IdParams, response: { 200: AgentResponse } } },
    async (request) => ({ data: await rotateAgentToken(ctx, await actor(request), request.params.id) }),
  );
}
