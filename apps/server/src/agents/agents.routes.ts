import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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
import { etagMatches } from '../http/etag.js';
import {
  agentListEtag,
  agentListPieces,
  createAgent,
  deleteAgent,
  getAgent,
  rotateAgentToken,
  updateAgent,
} from './agents.service.js';

/** /api/admin/agents: list, get, create, update, delete, rotate the token (admins only). */
export function registerAgentRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  // The admin scope (http/route-access.ts) has already refused anyone else; this names the admin.
  const actor = async (request: FastifyRequest) => ({ AdminName: (await requireAdmin(ctx, request)).admin.userName });

  // Open agents pages poll this every 5 s: an unchanged list answers 304 from two aggregates. The tag
  // is taken before the list is read, so a change in between makes the body newer than its tag (the
  // next poll gets the list again), never older. `private, no-cache`: the browser keeps the copy for
  // its own revalidation only; no shared cache may store an admin's list.
  routes.get('/api/admin/agents', { schema: { response: { 200: AgentListResponse } } }, async (request, reply) =>
    sendAgentList(reply, request.headers['if-none-match'], await agentListEtag(ctx), () => agentListPieces(ctx)),
  );

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

/**
 * Open agents pages poll the list every 5 s: when the caller's copy is current (If-None-Match), 304
 * with no body, so an unchanged list costs only its tag. The tag is taken before the list is read: a
 * change in between makes the body newer than its tag (the next poll gets the list again), never
 * older. `private, no-cache`: the browser keeps the copy only to revalidate it; no shared cache may.
 */
async function sendAgentList(
  reply: FastifyReply,
  ifNoneMatch: string | undefined,
  etag: string,
  list: () => Promise<string[]>,
): Promise<FastifyReply> {
  void reply.header('etag', etag).header('cache-control', 'private, no-cache');
  if (etagMatches(ifNoneMatch, etag)) return reply.code(304).send();
  // Already JSON text (see agentListPieces), sent piece by piece, not serialised again.
  return reply.type('application/json; charset=utf-8').send(Readable.from(await list()));
}
