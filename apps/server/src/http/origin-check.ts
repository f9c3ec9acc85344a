import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ErrorCodes } from '@postern/protocol';
import { ForbiddenError } from './errors.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * SAML assertion consumers receive a legitimate cross-site POST from the identity provider; what
 * protects them is the signed response and its InResponseTo, checked by the SAML module.
 */
const CROSS_SITE_POST_PATHS = new Set(['/api/saml/acs', '/api/admin/saml/acs']);

/**
 * Cross-site request forgery guard for the cookie-authenticated API. A state-changing request that a
 * browser sends names its page in `Origin`; it must be this server (as the request reached it, or the
 * configured public URL). Browsers that omit Origin still send `Sec-Fetch-Site`, which must not be
 * cross-site. Requests with neither come from non-browser clients, which cannot ride a victim's
 * cookies, so they pass.
 */
export function installOriginCheck(app: FastifyInstance, publicUrl: string | null): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const path = request.url.split('?')[0] ?? '';
    const refused =
      !SAFE_METHODS.has(request.method) &&
      path.startsWith('/api/') &&
      !CROSS_SITE_POST_PATHS.has(path) &&
      !isSameOrigin(request, publicUrl);
    done(refused ? new ForbiddenError(ErrorCodes.forbiddenOrigin) : undefined);
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
