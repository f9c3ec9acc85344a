import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AccountLanguageBody, EmptyResponse } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { requireAdmin, requireUser } from '../http/request-auth.js';
import { setUserLanguage } from '../users/users.repo.js';
import { setAdminLanguage } from '../admins/admins.repo.js';

/**
 * PUT /api/account/language: the signed-in user keeps their language choice on the server, so it
 * follows them to every browser (GET /api/status answers it as `Language`). Their own account only.
 */
export function registerUserLanguageRoutes(app: FastifyInstance, ctx: AppContext): void {
  app
    .withTypeProvider<ZodTypeProvider>()
    .put(
      '/api/account/language',
      { schema: { body: AccountLanguageBody, response: { 200: EmptyResponse } } },
      async (request) => {
        const { user } = await requireUser(ctx, request);
        await setUserLanguage(ctx.db, user.id, request.body.Language, ctx.clock.now());
        return { data: null };
      },
    );
}

/** PUT /api/admin/account/language: the same for the signed-in administrator (GET /api/admin/status). */
export function registerAdminLanguageRoutes(app: FastifyInstance, ctx: AppContext): void {
  app
    .withTypeProvider<ZodTypeProvider>()
    .put(
      '/api/admin/account/language',
      { schema: { body: AccountLanguageBody, response: { 200: EmptyResponse } } },
      async (request) => {
        const { admin } = await requireAdmin(ctx, request);
        await setAdminLanguage(ctx.db, admin.id, request.body.Language, ctx.clock.now());
        return { data: null };
      },
    );
}
