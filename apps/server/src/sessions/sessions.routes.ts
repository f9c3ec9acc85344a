import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { EmptyResponse, SessionsEndedResponse, IdParams } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { presentedDeviceCookie, requireAdmin, setDeviceCookie } from '../http/request-auth.js';
import {
  invalidateAdminSession,
  invalidateAllUserSessions,
  invalidateOtherAdminSessions,
  invalidateUserSession,
} from './sessions.service.js';

/** Admins ending sessions: all users', one user's, all other admins', one admin's. */
export function registerSessionRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.delete('/api/admin/sessions', { schema: { response: { 200: SessionsEndedResponse } } }, async (request) => {
    const { admin } = await requireAdmin(ctx, request);
    return { data: { Ended: await invalidateAllUserSessions(ctx, admin) } };
  });

  routes.delete(
    '/api/admin/sessions/:id',
    { schema: { params: IdParams, response: { 200: EmptyResponse } } },
    async (request) => {
      const { admin } = await requireAdmin(ctx, request);
      await invalidateUserSession(ctx, admin, request.params.id);
      return { data: null };
    },
  );

  routes.delete(
    '/api/admin/adminsessions',
    { schema: { response: { 200: SessionsEndedResponse } } },
    async (request, reply) => {
      const { admin, session } = await requireAdmin(ctx, request);
      const device = presentedDeviceCookie(ctx, request);
      const { ended, device: renewed } = await invalidateOtherAdminSessions(ctx, admin, session, device);
      if (renewed !== null) setDeviceCookie(ctx, reply, renewed);
      return { data: { Ended: ended } };
    },
  );

  routes.delete(
    '/api/admin/adminsessions/:id',
    { schema: { params: IdParams, response: { 200: EmptyResponse } } },
    async (request) => {
      const { admin } = await requireAdmin(ctx, request);
      await invalidateAdminSession(ctx, admin, request.params.id);
      return { data: null };
    },
  );
}
