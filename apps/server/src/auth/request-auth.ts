import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext, RequestMeta } from '../app-context.js';
import { UnauthenticatedError } from '../http/errors.js';
import { clientAddress } from '../http/client-address.js';
import { authenticateAdmin, authenticateUser } from './authenticate.js';
import { sessionCookieName, sessionCookieOptions, type SessionRealm } from './cookies.js';

/** Longest User-Agent kept with a session; enough to recognise a browser, bounded for storage. */
const USER_AGENT_MAX_LENGTH = 512;

export function requestMeta(request: FastifyRequest): RequestMeta {
  return {
    ipAddress: clientAddress(request),
    userAgent: (request.headers['user-agent'] ?? '').slice(0, USER_AGENT_MAX_LENGTH),
  };
}

export function sessionToken(ctx: AppContext, request: FastifyRequest, realm: SessionRealm): string | undefined {
  const token = request.cookies[sessionCookieName(realm, ctx.config.insecureHttp)];
  return token === undefined || token === '' ? undefined : token;
}

/** The signed-in user behind this request, or 401 err.invalidSession. */
export async function requireUser(ctx: AppContext, request: FastifyRequest) {
  const token = sessionToken(ctx, request, 'user');
  const found = token === undefined ? null : await authenticateUser(ctx, token);
  if (found === null) throw new UnauthenticatedError();
  return found;
}

type AdminAuth = NonNullable<Awaited<ReturnType<typeof authenticateAdmin>>>;
const authenticatedAdmins = new WeakMap<FastifyRequest, AdminAuth>();

/**
 * The signed-in admin behind this request, or 401 err.invalidSession. The admin guard has usually
 * looked it up already in onRequest; the answer is kept per request.
 */
export async function requireAdmin(ctx: AppContext, request: FastifyRequest): Promise<AdminAuth> {
  const known = authenticatedAdmins.get(request);
  if (known !== undefined) return known;
  const token = sessionToken(ctx, request, 'admin');
  const found = token === undefined ? null : await authenticateAdmin(ctx, token);
  if (found === null) throw new UnauthenticatedError();
  authenticatedAdmins.set(request, found);
  return found;
}

/** Admin API paths that serve people who are not (yet) signed in. */
const PUBLIC_ADMIN_PATHS = new Set([
  '/api/admin/login',
  '/api/admin/logout',
  '/api/admin/session',
  '/api/admin/otp/generate',
  '/api/admin/otp/verify',
  '/api/admin/saml/metadata',
  '/api/admin/login/saml',
  '/api/admin/saml/acs',
]);

/**
 * Every other /api/admin/ request must come from a signed-in admin, checked in onRequest: before the
 * body is read or validated, so a stranger learns nothing but 401 (not which fields were wrong, nor
 * which routes exist).
 */
export function installAdminGuard(app: FastifyInstance, ctx: AppContext): void {
  app.addHook('onRequest', async (request) => {
    const path = request.url.split('?')[0] ?? '';
    if (path.startsWith('/api/admin/') && !PUBLIC_ADMIN_PATHS.has(path)) await requireAdmin(ctx, request);
  });
}

export function setSessionCookie(
  ctx: AppContext,
  reply: FastifyReply,
  realm: SessionRealm,
  token: string,
  expiresAt: number | null,
): void {
  void reply.setCookie(
    sessionCookieName(realm, ctx.config.insecureHttp),
    token,
    sessionCookieOptions(realm, ctx.config.insecureHttp, expiresAt),
  );
}

export function clearSessionCookie(ctx: AppContext, reply: FastifyReply, realm: SessionRealm): void {
  void reply.clearCookie(
    sessionCookieName(realm, ctx.config.insecureHttp),
    sessionCookieOptions(realm, ctx.config.insecureHttp, null),
  );
}
