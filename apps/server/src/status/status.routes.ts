import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AdminStatusResponse, SystemStatusResponse, ThemeResponse, UserStatusResponse } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import type { WebApp } from '../http/web-app.js';
import { requestMeta, requireAdmin, requireUser } from '../http/request-auth.js';
import { adminStatus, systemStatus, theme, userStatus } from './status.service.js';

/** GET /api/status: the signed-in user's session, knocs and grants (the dashboard's poll). */
export function registerUserStatusRoutes(app: FastifyInstance, ctx: AppContext): void {
  app
    .withTypeProvider<ZodTypeProvider>()
    .get('/api/status', { schema: { response: { 200: UserStatusResponse } } }, async (request) => {
      const { user, session } = await requireUser(ctx, request);
      return { data: await userStatus(ctx, user, session, requestMeta(request)) };
    });
}

/** GET /api/admin/status: the console's counters, licence and versions. */
export function registerAdminStatusRoutes(app: FastifyInstance, ctx: AppContext): void {
  app
    .withTypeProvider<ZodTypeProvider>()
    .get('/api/admin/status', { schema: { response: { 200: AdminStatusResponse } } }, async (request) => {
      const { admin } = await requireAdmin(ctx, request);
      return { data: await adminStatus(ctx, admin) };
    });
}

/** The theme and the system status, which every page reads before anyone has signed in. */
export function registerPublicStatusRoutes(app: FastifyInstance, ctx: AppContext, webApp: WebApp): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get('/api/theme', { schema: { response: { 200: ThemeResponse } } }, async () => ({
    data: await theme(ctx),
  }));

  routes.get('/api/system_status', { schema: { response: { 200: SystemStatusResponse } } }, async (request) => ({
    data: await systemStatus(ctx, webApp.current().bundleHash, request),
  }));
}
