import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { LogClearResponse, LogListQuery, LogListResponse } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { requireAdmin } from '../http/request-auth.js';
import { clearOldAuditLog, listAuditLog } from './logs.service.js';

/**
 * /api/admin/logs: read the audit log (filtered by action, actor, target and time, see LogListQuery),
 * and clear the entries older than 30 days. Admins only.
 */
export function registerLogRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get(
    '/api/admin/logs',
    { schema: { querystring: LogListQuery, response: { 200: LogListResponse } } },
    async (request) => ({ data: await listAuditLog(ctx, request.query) }),
  );

  routes.delete('/api/admin/logs', { schema: { response: { 200: LogClearResponse } } }, async (request) => {
    const deleted = await clearOldAuditLog(ctx, { AdminName: (await requireAdmin(ctx, request)).admin.userName });
    return { data: { Deleted: deleted } };
  });
}
