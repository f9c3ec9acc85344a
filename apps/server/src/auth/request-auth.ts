import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext, RequestMeta } from '../app-context.js';
import { UnauthenticatedError } from '../http/errors.js';
import { clientAddress } from '../http/client-address.js';
import { authenticateAdmin, authenticateUser } from './auth.service.js';
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

/** The signed-in admin behind this request, or 401 err.invalidSession. */
export async function requireAdmin(ctx: AppContext, request: FastifyRequest) {
  const token = sessionToken(ctx, request, 'admin');
  const found = token === undefined ? null : await authenticateAdmin(ctx, token);
  if (found === null) throw new UnauthenticatedError();
  return found;
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
