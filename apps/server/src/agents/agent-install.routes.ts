import type { FastifyInstance } from 'fastify';
import { POSTERN_VERSION } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { NotFoundError } from '../errors.js';
import type { AgentDistribution } from './agent-distribution.js';
import { INSTALL_PLACEHOLDERS, renderInstallScript, safeServerUrl } from './install-script.js';

/** The bundle's hex SHA-256, for tools that want it without an ETag's quotes. */
export const AGENT_BUNDLE_SHA256_HEADER = 'x-postern-agent-sha256';
export const CLIENT_BUNDLE_SHA256_HEADER = 'x-postern-client-sha256';

/** Where one program's install script and bundle are served, and how its script names the checksum. */
interface ProgramRoutes {
  scriptPath: string;
  bundlePath: string;
  checksumHeader: string;
  checksumPlaceholder: typeof INSTALL_PLACEHOLDERS.bundleSha256 | typeof INSTALL_PLACEHOLDERS.clientBundleSha256;
  notBuilt: string;
}

/** The agent; the console's one-liner names its script. */
const AGENT_ROUTES: ProgramRoutes = {
  scriptPath: '/api/agent/install.sh',
  bundlePath: '/api/agent/postern-agent.mjs',
  checksumHeader: AGENT_BUNDLE_SHA256_HEADER,
  checksumPlaceholder: INSTALL_PLACEHOLDERS.bundleSha256,
  notBuilt: 'the agent bundle has not been built on this server; run npm run build',
};

/** postern-client, the machine client, installed beside agents (docs/client.md). */
const CLIENT_ROUTES: ProgramRoutes = {
  scriptPath: '/api/agent/install-client.sh',
  bundlePath: '/api/agent/postern-client.mjs',
  checksumHeader: CLIENT_BUNDLE_SHA256_HEADER,
  checksumPlaceholder: INSTALL_PLACEHOLDERS.clientBundleSha256,
  notBuilt: 'the client bundle has not been built on this server; run npm run build',
};

/** The programs the server hands out. */
export interface Distributions {
  agent: AgentDistribution;
  client: AgentDistribution;
}

/**
 * The install scripts and bundles of the agent and of postern-client. Public: none holds a secret
 * (the token or key is the admin's to give the host), and a host being installed has no session.
 */
export function registerAgentInstallRoutes(app: FastifyInstance, ctx: AppContext, distributions: Distributions): void {
  registerProgramRoutes(app, ctx, AGENT_ROUTES, distributions.agent);
  registerProgramRoutes(app, ctx, CLIENT_ROUTES, distributions.client);
}

function registerProgramRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  routes: ProgramRoutes,
  distribution: AgentDistribution,
): void {
  app.get(routes.scriptPath, async (_request, reply) => {
    const template = distribution.installTemplate();
    const bundle = distribution.bundle();
    if (template === null || bundle === null) throw new NotFoundError({ extra: routes.notBuilt });
    const script = renderInstallScript(template, {
      serverUrl: serverUrlFor(ctx),
      bundleSha256: bundle.sha256,
      version: POSTERN_VERSION,
      checksumPlaceholder: routes.checksumPlaceholder,
    });
    return reply.type('text/x-shellscript; charset=utf-8').send(script);
  });

  app.get(routes.bundlePath, async (request, reply) => {
    const bundle = distribution.bundle();
    if (bundle === null) throw new NotFoundError({ extra: routes.notBuilt });
    const etag = `"${bundle.sha256}"`;
    void reply
      .header('etag', etag)
      .header(routes.checksumHeader, bundle.sha256)
      // Revalidated every time: a rebuilt server must not hand out yesterday's program from a cache.
      .header('cache-control', 'no-cache');
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.type('text/javascript; charset=utf-8').send(bundle.bytes);
  });
}

/**
 * The server URL the script connects the program to by default: the configured public URL, or null
 * for none. Never the request's Host or X-Forwarded-Host: whoever sits between the admin and the
 * server (a hostile proxy, a poisoned cache, a link with another host name) would otherwise choose
 * where a root-run script sends the agent and its token. Without a public URL the script needs
 * --server, which the console's command names.
 */
function serverUrlFor(ctx: AppContext): string | null {
  const configured = ctx.config.publicUrl;
  if (configured === null) return null;
  const safe = safeServerUrl(configured);
  // loadConfig accepts only URL origins, so this means a broken deployment: a logged 500.
  if (safe === null) throw new Error('the public URL setting cannot be embedded in the install script');
  return safe;
}
