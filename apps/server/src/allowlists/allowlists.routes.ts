import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AllowlistResponse } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { clientAddress } from '../lib/client-address.js';
import { allowlistText, type AllowlistFormat } from './allowlist-format.js';
import { AllowlistPublisher, type AllowlistAnswer } from './allowlists.service.js';

/** Anything else in the path is simply not found, by the same 404 as a wrong token. */
const AllowlistParams = z.object({ aclId: z.string(), token: z.string() });
type AllowlistParams = z.infer<typeof AllowlistParams>;

/**
 * For the OpenAPI document: an API key (Basic or Bearer), or no credentials at all when the knoc
 * allows the caller's address.
 */
const ALLOWLIST_SECURITY: Record<string, string[]>[] = [{ apiKeyBasic: [] }, { apiKeyBearer: [] }, {}];

/**
 * The published allowlists, outside any session (firewalls poll them):
 *
 * - `GET /api/v1/allowlists/{aclId}/{token}.txt`: `text/plain`, a `# Postern allowlist for …` and a
 *   `# generated …` comment, then one address or CIDR a line. What firewalls' external lists read
 *   (FortiGate threat feeds, Palo Alto EDLs, Check Point, pfSense URL tables).
 * - `GET /api/v1/allowlists/{aclId}/{token}.json`: `{ data: { ACLID, Description, Generated,
 *   Addresses } }`, the same envelope as every other answer of this API. Firewalls that import JSON
 *   (FortiGate generic connectors, scripts) point their JSON path at `data.Addresses`, which is a
 *   plain array of strings, so no bare-array variant is needed.
 *
 * Both carry a strong ETag over the addresses (not the generation time) and `Cache-Control:
 * no-cache`; a matching If-None-Match gets 304 with no body. HTTP Basic (`apiuser` + key) or, when
 * the knoc allows it, the caller's address; the rules are in AllowlistPublisher.read.
 */
export function registerAllowlistRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const publisher = new AllowlistPublisher(ctx);
  const read = (request: FastifyRequest<{ Params: AllowlistParams }>, format: AllowlistFormat) =>
    publisher.read({
      aclId: request.params.aclId,
      token: request.params.token,
      format,
      address: clientAddress(request),
      authorization: request.headers.authorization,
      ifNoneMatch: request.headers['if-none-match'],
    });

  routes.get(
    '/api/v1/allowlists/:aclId/:token.txt',
    { schema: { params: AllowlistParams, security: ALLOWLIST_SECURITY } },
    async (request, reply) => {
      const answer = await read(request, 'txt');
      if (sentNotModified(reply, answer)) return reply;
      const { Description, Addresses } = answer.document;
      return reply.type('text/plain; charset=utf-8').send(allowlistText(Description, answer.generatedAt, Addresses));
    },
  );

  routes.get(
    '/api/v1/allowlists/:aclId/:token.json',
    { schema: { params: AllowlistParams, security: ALLOWLIST_SECURITY, response: { 200: AllowlistResponse } } },
    async (request, reply) => {
      const answer = await read(request, 'json');
      if (sentNotModified(reply, answer)) return reply;
      return reply.send({ data: answer.document });
    },
  );
}

/** Sets the validator headers; when the caller's copy is current, answers 304 with no body. */
function sentNotModified(reply: FastifyReply, answer: AllowlistAnswer): boolean {
  void reply.header('etag', answer.etag).header('cache-control', 'no-cache');
  if (!answer.notModified) return false;
  void reply.code(304).send();
  return true;
}
