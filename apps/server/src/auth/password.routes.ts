import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { EmptyResponse, PasswordChangeBody } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { changeOwnPassword } from './password.service.js';
import { requestMeta, requireUser } from '../http/request-auth.js';

export function registerPasswordRoutes(app: FastifyInstance, ctx: AppContext): void {
  app
    .withTypeProvider<ZodTypeProvider>()
    .put(
      '/api/password',
      { schema: { body: PasswordChangeBody, response: { 200: EmptyResponse } } },
      async (request) => {
        const { user, session } = await requireUser(ctx, request);
        await changeOwnPassword(ctx, user, session, request.body, requestMeta(request));
        return { data: null };
      },
    );
}
