import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  EmptyResponse,
  PasskeyListResponse,
  GroupListResponse,
  UserCreateBody,
  UserCreateResponse,
  UserListResponse,
  UserResponse,
  UserSessionListResponse,
  UserUpdateBody,
  IdParams,
  UserAclListResponse,
} from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { listPasskeysOf, resetPasskeys } from '../webauthn/passkeys.service.js';
import { requireAdmin } from '../http/request-auth.js';
import { listUserSessions } from '../sessions/sessions.service.js';
import {
  aclsOfUser,
  createUser,
  deleteUser,
  getUser,
  groupsOfUser,
  listUsers,
  resetUserTotp,
  updateUser,
} from './users.service.js';

/** /api/admin/users: the user directory. */
export function registerUserRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get('/api/admin/users', { schema: { response: { 200: UserListResponse } } }, async (request) => {
    await requireAdmin(ctx, request);
    return { data: await listUsers(ctx) };
  });

  routes.get(
    '/api/admin/users/:id',
    { schema: { params: IdParams, response: { 200: UserResponse } } },
    async (request) => {
      await requireAdmin(ctx, request);
      return { data: await getUser(ctx, request.params.id) };
    },
  );

  routes.post(
    '/api/admin/users',
    { schema: { body: UserCreateBody, response: { 200: UserCreateResponse } } },
    async (request) => {
      const { admin } = await requireAdmin(ctx, request);
      return { data: await createUser(ctx, admin, request.body) };
    },
  );

  routes.put(
    '/api/admin/users/:id',
    { schema: { params: IdParams, body: UserUpdateBody, response: { 200: UserResponse } } },
    async (request) => {
      const { admin } = await requireAdmin(ctx, request);
      return { data: await updateUser(ctx, admin, request.params.id, request.body) };
    },
  );

  routes.delete(
    '/api/admin/users/:id',
    { schema: { params: IdParams, response: { 200: EmptyResponse } } },
    async (request) => {
      const { admin } = await requireAdmin(ctx, request);
      await deleteUser(ctx, admin, request.params.id);
      return { data: null };
    },
  );

  routes.delete(
    '/api/admin/users/:id/totpToken',
    { schema: { params: IdParams, response: { 200: EmptyResponse } } },
    async (request) => {
      const { admin } = await requireAdmin(ctx, request);
      await resetUserTotp(ctx, admin, request.params.id);
      return { data: null };
    },
  );

  routes.get(
    '/api/admin/users/:id/passkeys',
    { schema: { params: IdParams, response: { 200: PasskeyListResponse } } },
    async (request) => {
      await requireAdmin(ctx, request);
      return { data: await listPasskeysOf(ctx, 'user', request.params.id) };
    },
  );

  routes.delete(
    '/api/admin/users/:id/passkeys',
    { schema: { params: IdParams, response: { 200: EmptyResponse } } },
    async (request) => {
      const { admin } = await requireAdmin(ctx, request);
      await resetPasskeys(ctx, admin, 'user', request.params.id);
      return { data: null };
    },
  );

  routes.get(
    '/api/admin/users/:id/sessions',
    { schema: { params: IdParams, response: { 200: UserSessionListResponse } } },
    async (request) => {
      await requireAdmin(ctx, request);
      await getUser(ctx, request.params.id);
      return { data: await listUserSessions(ctx, request.params.id) };
    },
  );

  routes.get(
    '/api/admin/users/:id/groups',
    { schema: { params: IdParams, response: { 200: GroupListResponse } } },
    async (request) => {
      await requireAdmin(ctx, request);
      return { data: await groupsOfUser(ctx, request.params.id) };
    },
  );

  routes.get(
    '/api/admin/users/:id/acls',
    { schema: { params: IdParams, response: { 200: UserAclListResponse } } },
    async (request) => {
      await requireAdmin(ctx, request);
      return { data: await aclsOfUser(ctx, request.params.id) };
    },
  );
}
