import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  AdminLoginBody,
  AdminLoginResponse,
  ApiErrorBody,
  ErrorCodes,
  LoginBody,
  LoginResponse,
  LogoutResponse,
} from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { errorBody } from '../http/error-handler.js';
import { adminSessionInfo } from './session-info.js';
import { signInAdmin, signInUser, signOutAdmin, signOutUser } from './login.service.js';
import { takeEndSessionUrl } from '../oidc/oidc-sign-outs.js';
import { countPasskeys } from '../webauthn/passkeys.repo.js';
import {
  clearSessionCookie,
  presentedDeviceCookie,
  requestMeta,
  requireAdminAnyStage,
  sessionToken,
  setDeviceCookie,
  setSessionCookie,
} from '../http/request-auth.js';

/**
 * Sign-in and sign-out for both realms (public). Logout always succeeds: its goal is met either way.
 * A session signed in through an OpenID Connect provider that offers RP-initiated logout answers with
 * the provider's logout URL, for the browser to go to next; every other logout answers null, as before.
 */
export function registerSignInRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const previousTokens = (request: Parameters<typeof sessionToken>[1]) => ({
    user: sessionToken(ctx, request, 'user'),
    admin: sessionToken(ctx, request, 'admin'),
    device: presentedDeviceCookie(ctx, request),
  });

  routes.post(
    '/api/login',
    {
      schema: {
        body: LoginBody,
        response: { 200: LoginResponse, 400: ApiErrorBody, 401: ApiErrorBody, 403: ApiErrorBody },
      },
    },
    async (request, reply) => {
      const outcome = await signInUser(ctx, request.body, requestMeta(request), previousTokens(request));
      switch (outcome.kind) {
        case 'signed-in':
          setSessionCookie(ctx, reply, 'user', outcome.session.token, outcome.kiosk ? null : outcome.session.endsAt);
          setDeviceCookie(ctx, reply, outcome.device);
          return { data: outcome.info };
        case 'second-factor':
          // The pending sign-in's cookie lives only as long as it may wait for the code.
          setSessionCookie(ctx, reply, 'user', outcome.session.token, outcome.session.endsAt);
          setDeviceCookie(ctx, reply, outcome.device);
          return reply.code(401).send(errorBody(outcome.error));
        case 'admin':
          setSessionCookie(ctx, reply, 'admin', outcome.session.token, outcome.session.endsAt);
          setDeviceCookie(ctx, reply, outcome.device);
          return reply.code(403).send(errorBody(ErrorCodes.unauthorised));
      }
    },
  );

  routes.post('/api/logout', { schema: { response: { 200: LogoutResponse } } }, async (request, reply) => {
    const token = sessionToken(ctx, request, 'user');
    let endSessionUrl: string | null = null;
    if (token !== undefined) {
      endSessionUrl = await takeEndSessionUrl(ctx, token, 'user');
      await signOutUser(ctx, token, requestMeta(request));
    }
    clearSessionCookie(ctx, reply, 'user');
    return { data: endSessionUrl === null ? null : { EndSessionURL: endSessionUrl } };
  });

  routes.post(
    '/api/admin/login',
    { schema: { body: AdminLoginBody, response: { 200: AdminLoginResponse } } },
    async (request, reply) => {
      const outcome = await signInAdmin(ctx, request.body, requestMeta(request), previousTokens(request));
      setSessionCookie(ctx, reply, 'admin', outcome.session.token, outcome.session.endsAt);
      setDeviceCookie(ctx, reply, outcome.device);
      return { data: outcome.info };
    },
  );

  routes.post('/api/admin/logout', { schema: { response: { 200: LogoutResponse } } }, async (request, reply) => {
    const token = sessionToken(ctx, request, 'admin');
    let endSessionUrl: string | null = null;
    if (token !== undefined) {
      endSessionUrl = await takeEndSessionUrl(ctx, token, 'admin');
      await signOutAdmin(ctx, token, requestMeta(request));
    }
    clearSessionCookie(ctx, reply, 'admin');
    return { data: endSessionUrl === null ? null : { EndSessionURL: endSessionUrl } };
  });
}

/** The admin sign-in behind the cookie, finished or still waiting for its second factor. */
export function registerAdminSessionRoutes(app: FastifyInstance, ctx: AppContext): void {
  app
    .withTypeProvider<ZodTypeProvider>()
    .get('/api/admin/session', { schema: { response: { 200: AdminLoginResponse } } }, async (request) => {
      const { admin } = await requireAdminAnyStage(ctx, request);
      // A sign-in waiting for its second factor offers passkeys when the account holds any.
      return { data: adminSessionInfo(admin, (await countPasskeys(ctx.db, 'admin', admin.id)) > 0) };
    });
}
