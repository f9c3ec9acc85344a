import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  AdminCreateBody,
  AdminListResponse,
  AdminResponse,
  AdminSessionListResponse,
  AdminUpdateBody,
  EmptyResponse,
  PasskeyListResponse,
  IdParams,
} from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { listPasskeysOf, resetPasskeys } from '../webauthn/passkeys.service.js';
import { requireAdmin } from '../http/request-auth.js';
import { listAdminSessions } from '../sessions/sessions.service.js';
import { createAdmin, deleteAdmin, getAdmin, listAdmins, resetAdminTotp, updateAdmin } from './admins.service.js';

/** /api/admin/admins: the administrators. */
export function registerAdminRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get('/api/admin/admins', { schema: { response: { 200: AdminListResponse } } }, async (request) => {
    await requireAdmin(ctx, request);
    return { data: await listAdmins(ctx) };
  });

  routes.get(
    '/api/admin/admins/:id',
    { schema: { params: IdParams, response: { 200: AdminResponse } } },
    async (request) => {
      await requireAdmin(ctx, request);
      return { data: await getAdmin(ctx, request.params.id) };
    },
  );

  routes.post(
    '/api/admin/admins',
    { schema: { body: AdminCreateBody, response: { 200: AdminResponse } } },
    async (request) => {
      const { admin } = await requireAdmin(ctx, request);
      return { data: await createAdmin(ctx, admin, request.body) };
    },
  );

  routes.put(
    '/api/admin/admins/:id',
    { schema: { params: IdParams, body: AdminUpdateBody, response: { 200: AdminResponse } } },
    async (request) => {
      const { admin, session } = await requireAdmin(ctx, request);
      return { data: await updateAdmin(ctx, admin, session.id, request.params.id, request.body) };
    },
  );

  routes.delete(
    '/api/admin/admins/:id',
    { schema: { params: IdParams, response: { 200: EmptyResponse } } },
    async (request) => {
      const { admin } = await requireAdmin(ctx, request);
      await deleteAdmin(ctx, admin, request.params.id);
      return { data: null };
    },
  );

  routes.delete(
    '/api/admin/admins/:id/totpToken',
    { schema: { params: IdParams, response: { 200: EmptyResponse } } },
    async (request) => {
      const { admin } = await requireAdmin(ctx, request);
      await resetAdminTotp(ctx, admin, request.params.id);
      return { data: null };
    },
  );

  routes.get(
    '/api/admin/admins/:id/passkeys',
    { schema: { params: IdParams, response: { 200: PasskeyListResponse } } },
    async (request) => {
      await requireAdmin(ctx, request);
      return { data: await listPasskeysOf(ctx, 'admin', request.params.id) };
    },
  );

  routes.delete(
    '/api/admin/admins/:id/passkeys',
    { schema: { params: IdParams, response: { 200: EmptyResponse } } },
    async (request) => {
      const { admin } = await requireAdmin(ctx, request);
      await resetPasskeys(ctx, admin, 'admin', request.params.id);
      return { data: null };
    },
  );

  routes.get(
    '/api/admin/admins/:id/sessions',
    { schema: { params: IdParams, response: { 200: AdminSessionListResponse } } },
    async (request) => {
      const { session } = await requireAdmin(ctx, request);
      await getAdmin(ctx, request.params.id);
      return { data: await listAdminSessions(ctx, request.params.id, session) };
    },
  );
}
