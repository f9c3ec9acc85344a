import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { AppContext } from '../app-context.js';
import { requireAdmin } from '../auth/request-auth.js';
import { UnauthenticatedError } from '../http/errors.js';

type SignedInAdmin = Awaited<ReturnType<typeof requireAdmin>>;

const admins = new WeakMap<FastifyRequest, SignedInAdmin>();

/**
 * Route options that authenticate the admin in `onRequest`, before the body is parsed or validated,
 * so a caller without an admin session learns nothing but 401 err.invalidSession (not which fields
 * it got wrong). The handler reads the admin back with `signedInAdmin`.
 */
export function adminGuard(ctx: AppContext): { onRequest: onRequestAsyncHookHandler } {
  return {
    onRequest: async (request) => {
      admins.set(request, await requireAdmin(ctx, request));
    },
  };
}

/** The admin `adminGuard` authenticated for this request. */
export function signedInAdmin(request: FastifyRequest): SignedInAdmin {
  const found = admins.get(request);
  // Only reachable when a route forgot the guard; refusing is the safe answer.
  if (found === undefined) throw new UnauthenticatedError();
  return found;
}
