import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { EmptyResponse, PasswordChangeBody } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { changeOwnPassword } from './password.service.js';
import { presentedDeviceCookie, requestMeta, requireUser, setDeviceCookie } from '../http/request-auth.js';

export function registerPasswordRoutes(app: FastifyInstance, ctx: AppContext): void {
  app
    .withTypeProvider<ZodTypeProvider>()
    .put(
      '/api/password',
      { schema: { body: PasswordChangeBody, response: { 200: EmptyResponse } } },
      async (request, reply) => {
        const { user, session } = await requireUser(ctx, request);
        const meta = requestMeta(request);
        const device = await changeOwnPassword(
          ctx,
          user,
          session,
          request.body,
          meta,
          presentedDeviceCookie(ctx, request),
        );
        setDeviceCookie(ctx, reply, device);
        return { data: null };
      },
    );
}
