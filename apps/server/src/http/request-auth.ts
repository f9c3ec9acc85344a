import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext, RequestMeta } from '../app-context.js';
import { UnauthenticatedError } from '../errors.js';
import { clientAddress } from '../lib/client-address.js';
import { authenticateAdmin, authenticateUser, type WantedStage } from '../auth/authenticate.js';
import type { IssuedDeviceCookie } from '../auth/device-cookie.js';
import {
  deviceCookieName,
  deviceCookieOptions,
  sessionCookieName,
  sessionCookieOptions,
  type SessionRealm,
} from './cookies.js';

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

type UserAuth = NonNullable<Awaited<ReturnType<typeof authenticateUser>>>;
type AdminAuth = NonNullable<Awaited<ReturnType<typeof authenticateAdmin>>>;

/**
 * What a request's cookies were found to be, per realm and stage. The route's access scope looks a
 * caller up in onRequest and the handler asks again for the account; the answer is kept per request
 * so the store is asked once.
 */
const authenticated = new WeakMap<FastifyRequest, Map<string, UserAuth | AdminAuth>>();

async function remembered<T extends UserAuth | AdminAuth>(
  request: FastifyRequest,
  key: string,
  lookUp: () => Promise<T | null>,
): Promise<T> {
  let known = authenticated.get(request);
  const found = known?.get(key);
  if (found !== undefined) return found as T;
  const fresh = await lookUp();
  if (fresh === null) throw new UnauthenticatedError();
  if (known === undefined) {
    known = new Map();
    authenticated.set(request, known);
  }
  known.set(key, fresh);
  return fresh;
}

/** The session of `realm` in `stage` behind the request's cookie, looked up once per request. */
function requireSession<T extends UserAuth | AdminAuth>(
  ctx: AppContext,
  request: FastifyRequest,
  realm: SessionRealm,
  stage: WantedStage,
  authenticate: (ctx: AppContext, token: string, stage: WantedStage) => Promise<T | null>,
): Promise<T> {
  return remembered(request, `${realm}:${stage}`, () => {
    const token = sessionToken(ctx, request, realm);
    return token === undefined ? Promise.resolve(null) : authenticate(ctx, token, stage);
  });
}

/** The signed-in user behind this request, or 401 err.invalidSession. */
export function requireUser(ctx: AppContext, request: FastifyRequest): Promise<UserAuth> {
  return requireSession(ctx, request, 'user', 'active', authenticateUser);
}

/** The user session behind this request, signed in or still waiting for its second factor, or 401. */
export function requireUserAnyStage(ctx: AppContext, request: FastifyRequest): Promise<UserAuth> {
  return requireSession(ctx, request, 'user', 'any', authenticateUser);
}

/** The signed-in admin behind this request, or 401 err.invalidSession. */
export function requireAdmin(ctx: AppContext, request: FastifyRequest): Promise<AdminAuth> {
  return requireSession(ctx, request, 'admin', 'active', authenticateAdmin);
}

/** The admin session behind this request, signed in or still waiting for its second factor, or 401. */
export function requireAdminAnyStage(ctx: AppContext, request: FastifyRequest): Promise<AdminAuth> {
  return requireSession(ctx, request, 'admin', 'any', authenticateAdmin);
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

/** The device cookie the request carried (auth/device-cookie.ts), unread: its entries are checked where it counts. */
export function presentedDeviceCookie(ctx: AppContext, request: FastifyRequest): string | undefined {
  return request.cookies[deviceCookieName(ctx.config.insecureHttp)];
}

/** Sets the browser's renewed device cookie. */
export function setDeviceCookie(ctx: AppContext, reply: FastifyReply, issued: IssuedDeviceCookie): void {
  void reply.setCookie(
    deviceCookieName(ctx.config.insecureHttp),
    issued.value,
    deviceCookieOptions(ctx.config.insecureHttp, issued.expiresAt),
  );
}
