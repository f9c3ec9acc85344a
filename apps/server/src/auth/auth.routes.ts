import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AdminLoginBody, AdminLoginResponse, EmptyResponse, LoginBody, LoginResponse } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { loginAdmin, loginUser, logoutAdmin, logoutUser } from './auth.service.js';
import { clearSessionCookie, requestMeta, sessionToken, setSessionCookie } from './request-auth.js';

/** Sign-in and sign-out for both realms. Logout always succeeds: its goal is met either way. */
export function registerAuthRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.post(
    '/api/login',
    { schema: { body: LoginBody, response: { 200: LoginResponse } } },
    async (request, reply) => {
      const started = await loginUser(ctx, request.body, requestMeta(request), sessionToken(ctx, request, 'user'));
      setSessionCookie(ctx, reply, 'user', started.token, started.cookieExpiresAt);
      return { data: started.info };
    },
  );

  routes.post('/api/logout', { schema: { response: { 200: EmptyResponse } } }, async (request, reply) => {
    const token = sessionToken(ctx, request, 'user');
    if (token !== undefined) await logoutUser(ctx, token, requestMeta(request));
    clearSessionCookie(ctx, reply, 'user');
    return { data: null };
  });

  routes.post(
    '/api/admin/login',
    { schema: { body: AdminLoginBody, response: { 200: AdminLoginResponse } } },
    async (request, reply) => {
      const started = await loginAdmin(ctx, request.body, requestMeta(request), sessionToken(ctx, request, 'admin'));
      setSessionCookie(ctx, reply, 'admin', started.token, started.cookieExpiresAt);
      return { data: started.info };
    },
  );

  routes.post('/api/admin/logout', { schema: { response: { 200: EmptyResponse } } }, async (request, reply) => {
    const token = sessionToken(ctx, request, 'admin');
    if (token !== undefined) await logoutAdmin(ctx, token, requestMeta(request));
    clearSessionCookie(ctx, reply, 'admin');
    return { data: null };
  });
}
