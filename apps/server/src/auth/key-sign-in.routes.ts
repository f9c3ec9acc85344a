import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ApiErrorBody, LoginResponse, V1_LOGIN_PATH } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { requestMeta, setSessionCookie } from '../http/request-auth.js';
import { signInWithApiKey } from './key-sign-in.service.js';

/**
 * POST /api/v1/login: a machine signs in with an API key scoped `user.auth:{user ID}` in the
 * Authorization header (Bearer, or Basic `apiuser`), never in the URL, and gets the session cookie
 * and the answer a person's POST /api/login gets. No body is read.
 */
export function registerKeySignInRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.withTypeProvider<ZodTypeProvider>().post(
    V1_LOGIN_PATH,
    {
      schema: {
        response: { 200: LoginResponse, 401: ApiErrorBody, 403: ApiErrorBody, 429: ApiErrorBody },
      },
    },
    async (request, reply) => {
      const outcome = await signInWithApiKey(ctx, request.headers.authorization, requestMeta(request));
      setSessionCookie(ctx, reply, 'user', outcome.session.token, outcome.session.endsAt);
      return { data: outcome.info };
    },
  );
}
