import type { FastifyInstance, FastifyRequest } from 'fastify';
import { POSTERN_VERSION } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { BadRequestError, NotFoundError } from '../errors.js';
import type { AgentDistribution } from './agent-distribution.js';
import { renderInstallScript, safeServerUrl } from './install-script.js';

/** Where the install script and the bundle are served; the console's one-liner names the first. */
const AGENT_INSTALL_SCRIPT_PATH = '/api/agent/install.sh';
const AGENT_BUNDLE_PATH = '/api/agent/postern-agent.mjs';

/** The bundle's hex SHA-256, for tools that want it without an ETag's quotes. */
export const AGENT_BUNDLE_SHA256_HEADER = 'x-postern-agent-sha256';

const NOT_BUILT = 'the agent bundle has not been built on this server; run npm run build';

/**
 * The install script and the agent bundle. Public: neither holds a secret (the token is the admin's
 * to paste into the command), and a host being installed has no session.
 */
export function registerAgentInstallRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  distribution: AgentDistribution,
): void {
  app.get(AGENT_INSTALL_SCRIPT_PATH, async (request, reply) => {
    const template = distribution.installTemplate();
    const bundle = distribution.bundle();
    if (template === null || bundle === null) throw new NotFoundError({ extra: NOT_BUILT });
    const script = renderInstallScript(template, {
      serverUrl: serverUrlFor(ctx, request),
      bundleSha256: bundle.sha256,
      version: POSTERN_VERSION,
    });
    return reply.type('text/x-shellscript; charset=utf-8').send(script);
  });

  app.get(AGENT_BUNDLE_PATH, async (request, reply) => {
    const bundle = distribution.bundle();
    if (bundle === null) throw new NotFoundError({ extra: NOT_BUILT });
    const etag = `"${bundle.sha256}"`;
    void reply
      .header('etag', etag)
      .header(AGENT_BUNDLE_SHA256_HEADER, bundle.sha256)
      // Revalidated every time: a rebuilt server must not hand out yesterday's agent from a cache.
      .header('cache-control', 'no-cache');
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.type('text/javascript; charset=utf-8').send(bundle.bytes);
  });
}

/**
 * The server URL the script connects the agent to: the configured public URL, else what this request
 * was addressed to (X-Forwarded-* only from trusted proxies, as Fastify was told). A Host header that
 * is not a plain host name is refused rather than embedded in a script someone runs as root.
 */
function serverUrlFor(ctx: AppContext, request: FastifyRequest): string {
  const configured = ctx.config.publicUrl;
  if (configured !== null) {
    const safe = safeServerUrl(configured);
    // loadConfig accepts only URL origins, so this means a broken deployment: a logged 500.
    if (safe === null) throw new Error('the public URL setting cannot be embedded in the install script');
    return safe;
  }
  const derived = safeServerUrl(`${request.protocol}://${request.host}`);
  if (derived === null) throw new BadRequestError({ extra: 'Host' });
  return derived;
}
