import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { V1UserSessionListResponse } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { requireApiKey } from '../apikeys/api-key-auth.js';
import { listRunningUserSessions } from './user-sessions.service.js';

/** The realm of the Basic challenge on the key-authenticated API other than allowlists. */
const API_REALM = 'postern-api';

/**
 * GET /api/v1/user_sessions for machines: an API key with the `user.sessions` scope, as HTTP Basic
 * (`apiuser` + key) or `Authorization: Bearer <key>`, from an address its AllowedFrom allows. Read-only
 * and frequent (monitoring), so not audited; the key's LastUsedAt is recorded.
 */
export function registerUserSessionRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  routes.get('/api/v1/user_sessions', { schema: { response: { 200: V1UserSessionListResponse } } }, async (request) => {
    await requireApiKey(ctx, request, 'user.sessions', API_REALM);
    return { data: await listRunningUserSessions(ctx) };
  });
}
