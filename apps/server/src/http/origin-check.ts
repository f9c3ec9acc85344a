import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ErrorCodes } from '@postern/protocol';
import { ForbiddenError } from '../errors.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Cross-site request forgery guard for every route. A state-changing request that a browser sends
 * names its page in `Origin`; it must be this server (as the request reached it, or the configured
 * public URL). Browsers that omit Origin still send `Sec-Fetch-Site`, which must not be cross-site.
 * Requests with neither come from non-browser clients, which cannot ride a victim's cookies, so they
 * pass.
 *
 * What applies is decided by the route the request matched (its method, and its `crossSitePost`
 * rule for the SAML assertion consumers), never by the text of the URL, so every spelling of a path
 * gets its route's rule.
 */
export function installOriginCheck(app: FastifyInstance, publicUrl: string | null): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const exempt = SAFE_METHODS.has(request.method) || request.routeOptions.config.crossSitePost === true;
    done(
      exempt || isSameOrigin(request, publicUrl) ? undefined : new ForbiddenError({ code: ErrorCodes.forbiddenOrigin }),
    );
  });
}

function isSameOrigin(request: FastifyRequest, publicUrl: string | null): boolean {
  const origin = request.headers.origin;
  if (origin !== undefined) {
    return origin === `${request.protocol}://${request.host}` || (publicUrl !== null && origin === publicUrl);
  }
  const fetchSite = request.headers['sec-fetch-site'];
  return fetchSite === undefined || fetchSite === 'same-origin' || fetchSite === 'none';
}
