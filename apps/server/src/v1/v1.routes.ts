import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context.js';
import { registerAllowlistRoutes } from '../allowlists/allowlists.routes.js';
import { registerUserSessionRoutes } from './user-sessions.routes.js';

/**
 * /api/v1: the API for machines, authenticated by API keys (or, for allowlists, by address) instead
 * of sessions; registered in the api-key scope. All GETs, so the Origin check does not apply.
 */
export function registerV1Routes(app: FastifyInstance, ctx: AppContext): void {
  registerAllowlistRoutes(app, ctx);
  registerUserSessionRoutes(app, ctx);
}
