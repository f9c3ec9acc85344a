import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import fastifyCookie from '@fastify/cookie';
import fastifyHelmet from '@fastify/helmet';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { AppContext } from '../app-context.js';
import { installErrorHandler } from './error-handler.js';
import { installOriginCheck } from './origin-check.js';
import { registerWebApp, type WebApp } from './web-app.js';
import { registerAuthRoutes } from '../auth/auth.routes.js';
import { installAdminGuard } from '../auth/request-auth.js';
import { registerOtpRoutes } from '../auth/otp.routes.js';
import { registerSamlRoutes } from '../saml/saml.routes.js';
import { registerPasswordRoutes } from '../auth/password.routes.js';
import { registerSessionRoutes } from '../sessions/sessions.routes.js';
import { registerUserRoutes } from '../users/users.routes.js';
import { registerAdminRoutes } from '../admins/admins.routes.js';
import { registerLicenceRoutes } from '../licence/licence.routes.js';
import { registerGroupRoutes } from '../groups/groups.routes.js';
import { registerApiKeyRoutes } from '../apikeys/apikeys.routes.js';
import { registerLogRoutes } from '../audit/logs.routes.js';
import { registerSettingsRoutes } from '../settings/settings.routes.js';
import { registerStatusRoutes } from '../status/status.routes.js';
import { registerBackendRoutes } from '../backends/backends.routes.js';
import { registerKnocRoutes } from '../knocs/knocs.routes.js';
import { registerGrantRoutes } from '../grants/grants.routes.js';
import type { AgentHub } from '../agent-hub/agent-hub.js';
import { registerV1Routes } from '../v1/v1.routes.js';
import { registerAgentRoutes } from '../agents/agents.routes.js';
import { uuidv7 } from '../lib/ids.js';
import { discoveryBase, discoveryConnectSource, withConnectSource } from '../ip-discovery/discovery-url.js';
import { readSetting } from '../settings/settings.js';

/** Request bodies larger than this are refused with 413 (logo uploads raise it on their route). */
const BODY_LIMIT_BYTES = 256 * 1024;

/**
 * Builds the HTTP application: security headers, CSRF guard, routes, the web app and the one error
 * handler. It does not listen; `server.ts` does, and tests use `app.inject`.
 */
export interface BuildAppOptions {
  /** Called after an admin changed the runtime configuration (DebugMode, GELF target). */
  onConfigChanged?: () => Promise<void>;
  /** Serves the agents' WebSocket endpoint when given (the server and tests that drive agents). */
  agentHub?: AgentHub;
}

export async function buildApp(
  ctx: AppContext,
  webApp: WebApp,
  options: BuildAppOptions = {},
): Promise<FastifyInstance> {
  const app = Fastify({
    // Typed as Fastify's base logger so the instance matches the plain FastifyInstance the routes take.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
    loggerInstance: ctx.logger as FastifyBaseLogger,
    // X-Forwarded-* are believed only from the configured proxies.
    trustProxy: ctx.config.trustedProxies.length > 0 ? ctx.config.trustedProxies : false,
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: () => uuidv7(),
    // One line per request, written by the onResponse hook below, instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    return503OnClosing: true,
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandler(app);

  await app.register(fastifyCookie);
  await app.register(fastifyHelmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        // Mantine sets inline style attributes and injects CSS variables at run time.
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    referrerPolicy: { policy: 'same-origin' },
    // Only meaningful over HTTPS; browsers ignore it on plain HTTP.
    hsts: { maxAge: 31_536_000, includeSubDomains: false },
  });
  app.addHook('onSend', async (request, reply) => {
    // The page may fetch the IP discovery URL too, on its ports (see ip-discovery/discovery-url.ts).
    // Only the HTML document's policy governs the page, so only it pays for reading the setting.
    if (!String(reply.getHeader('content-type') ?? '').startsWith('text/html')) return;
    const source = discoveryConnectSource(
      discoveryBase(
        ctx,
        {
          DiscoverIP: await readSetting(ctx.db, 'DiscoverIP'),
          DiscoverIPURL: await readSetting(ctx.db, 'DiscoverIPURL'),
        },
        request,
      ),
    );
    const policy = reply.raw.getHeader('content-security-policy');
    if (source !== null && typeof policy === 'string') {
      void reply.header('content-security-policy', withConnectSource(policy, source));
    }
  });
  app.addHook('onSend', async (request, reply) => {
    // API answers are per person and per moment: never cache them anywhere (unless a route says otherwise).
    if (request.url.startsWith('/api/') && !reply.hasHeader('cache-control'))
      void reply.header('cache-control', 'no-store');
  });
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        url: request.url.split('?')[0],
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      'request',
    );
  });
  installOriginCheck(app, ctx.config.publicUrl);
  installAdminGuard(app, ctx);

  registerAuthRoutes(app, ctx);
  registerOtpRoutes(app, ctx);
  registerSamlRoutes(app, ctx);
  registerPasswordRoutes(app, ctx);
  registerSessionRoutes(app, ctx);
  registerUserRoutes(app, ctx);
  registerAdminRoutes(app, ctx);
  registerLicenceRoutes(app, ctx);
  registerGroupRoutes(app, ctx);
  registerApiKeyRoutes(app, ctx);
  registerLogRoutes(app, ctx);
  registerSettingsRoutes(app, ctx, options.onConfigChanged ?? (() => Promise.resolve()));
  registerBackendRoutes(app, ctx);
  registerKnocRoutes(app, ctx);
  registerStatusRoutes(app, ctx, webApp);
  registerGrantRoutes(app, ctx);
  if (options.agentHub !== undefined) await options.agentHub.register(app);
  registerV1Routes(app, ctx);
  registerAgentRoutes(app, ctx);
  await registerWebApp(app, webApp);
  return app;
}
