import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import fastifyCookie from '@fastify/cookie';
import fastifyHelmet from '@fastify/helmet';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { AppContext } from './app-context.js';
import { answerRouterError, installErrorHandler } from './http/error-handler.js';
import { installUnreadableSecretAudit } from './http/unreadable-secret-audit.js';
import { installOriginCheck } from './http/origin-check.js';
import { installCanonicalPathRule } from './http/canonical-path.js';
import { installNulCharacterRule } from './http/nul-character-rule.js';
import { installClosingRule } from './http/closing-rule.js';
import { trustedProxyRule } from './lib/forwarded-address.js';
import { installForwardedForRule } from './http/forwarded-for-rule.js';
import { recordRouteTable, registerAccessScope } from './http/route-access.js';
import { NotFoundError } from './errors.js';
import { registerWebApp, type WebApp } from './http/web-app.js';
import { registerAdminSessionRoutes, registerSignInRoutes } from './auth/auth.routes.js';
import { registerAdminOtpRoutes, registerUserOtpRoutes } from './auth/otp.routes.js';
import { registerSamlRoutes } from './saml/saml.routes.js';
import { registerOidcAdminRoutes, registerOidcRoutes } from './oidc/oidc.routes.js';
import {
  registerPasskeyCeremonyRoutes,
  registerPasskeyCredentialRoutes,
  registerPasskeySignInRoutes,
} from './webauthn/webauthn.routes.js';
import { OidcService } from './oidc/oidc.service.js';
import { registerPasswordRoutes } from './auth/password.routes.js';
import { registerAdminLanguageRoutes, registerUserLanguageRoutes } from './account/language.routes.js';
import { registerSessionRoutes } from './sessions/sessions.routes.js';
import { registerUserRoutes } from './users/users.routes.js';
import { registerAdminRoutes } from './admins/admins.routes.js';
import { registerLicenceRoutes } from './licence/licence.routes.js';
import { registerGroupRoutes } from './groups/groups.routes.js';
import { registerApiKeyRoutes } from './apikeys/apikeys.routes.js';
import { registerLogRoutes } from './audit/logs.routes.js';
import { registerBrandingRoutes, registerSettingsRoutes } from './settings/settings.routes.js';
import { LogoCodec } from './settings/logo-codec.js';
import {
  registerAdminStatusRoutes,
  registerPublicStatusRoutes,
  registerUserStatusRoutes,
} from './status/status.routes.js';
import { registerBackendRoutes } from './backends/backends.routes.js';
import { registerKnocRoutes } from './knocs/knocs.routes.js';
import { registerKnocTestRoutes } from './knocs/knoc-test.routes.js';
import { registerBreakGlassRoutes, registerGrantRoutes } from './grants/grants.routes.js';
import type { AgentHub } from './agent-hub/agent-hub.js';
import { registerAllowlistRoutes } from './allowlists/allowlists.routes.js';
import { registerUserSessionRoutes } from './sessions/user-sessions.routes.js';
import { registerKeySignInRoutes } from './auth/key-sign-in.routes.js';
import { registerAgentRoutes } from './agents/agents.routes.js';
import { registerAgentInstallRoutes } from './agents/agent-install.routes.js';
import { registerDocsRoutes } from './docs/docs.routes.js';
import { registerHealthRoutes } from './health/health.routes.js';
import type { ClockWatch } from './health/clock-watch.js';
import {
  DEFAULT_CLIENT_DISTRIBUTION_PATHS,
  loadAgentDistribution,
  type AgentDistribution,
} from './agents/agent-distribution.js';
import { uuidv7 } from './lib/ids.js';
import {
  discoveryConnectSources,
  discoveryUrls,
  readDiscoverySettings,
  withConnectSource,
} from './ip-discovery/discovery-url.js';
import { installOpenApi, registerOpenApiRoutes } from './openapi/openapi.js';
import { registerArea } from './openapi/api-areas.js';

/** Request bodies larger than this are refused with 413 (logo uploads raise it on their route). */
const BODY_LIMIT_BYTES = 256 * 1024;

/** What the app serves besides the routes every server has. */
export interface BuildAppOptions {
  /** Called after an admin changed the runtime configuration (DebugMode, GELF target). */
  onConfigChanged?: () => Promise<void>;
  /** Serves the agents' WebSocket endpoint when given (the server and tests that drive agents). */
  agentHub?: AgentHub;
  /** The clock checks whose verdict /readyz shows (health/clock-watch.ts); none: no Clock field. */
  clockWatch?: ClockWatch;
  /** The agent installer and bundle; the build beside the server by default. */
  agentDistribution?: AgentDistribution;
  /** postern-client's installer and bundle; the build beside the server by default. */
  clientDistribution?: AgentDistribution;
  /** Re-encodes uploaded logos off the event loop; a new one by default. Closed with the app. */
  logoCodec?: LogoCodec;
}

/**
 * Builds the HTTP application: security headers, the request rules every route keeps (one canonical
 * path spelling, the Origin check), the routes in their access scopes, the web app and the one error
 * handler. It does not listen; `server.ts` does, and tests use `app.inject`.
 */
export async function buildApp(
  ctx: AppContext,
  webApp: WebApp,
  options: BuildAppOptions = {},
): Promise<FastifyInstance> {
  const trustedProxy = trustedProxyRule(ctx.config.trustedProxies);
  const app = Fastify({
    // Typed as Fastify's base logger so the instance matches the plain FastifyInstance the routes take.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
    loggerInstance: ctx.logger as FastifyBaseLogger,
    // X-Forwarded-* are believed only from the configured proxies, matched by our own address parser.
    trustProxy: trustedProxy ?? false,
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: () => uuidv7(),
    // One line per request, written by the onResponse hook below, instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    return503OnClosing: true,
    // Router errors (a malformed escape, an over-long parameter) in the same envelope as the rest.
    frameworkErrors: answerRouterError,
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandler(app);
  installClosingRule(app);
  installUnreadableSecretAudit(app, ctx);
  recordRouteTable(app);
  // Before any route, so the OpenAPI document sees them all.
  await installOpenApi(app, ctx);
  // Before anything else a route does: a forwarded client address that is one, one spelling of
  // every path, then the Origin rule.
  installForwardedForRule(app, trustedProxy);
  installCanonicalPathRule(app);
  installOriginCheck(app, ctx.config.publicUrl);
  installNulCharacterRule(app);

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
    const sources = discoveryConnectSources(discoveryUrls(ctx, await readDiscoverySettings(ctx), request));
    const policy = reply.raw.getHeader('content-security-policy');
    if (sources.length > 0 && typeof policy === 'string') {
      void reply.header('content-security-policy', withConnectSource(policy, sources.join(' ')));
    }
  });
  app.addHook('onSend', async (request, reply) => {
    // API answers are per person and per moment: never cache them anywhere (unless a route says otherwise).
    if ((request.routeOptions.url ?? request.url).startsWith('/api/') && !reply.hasHeader('cache-control'))
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
  const logoCodec = options.logoCodec ?? new LogoCodec({ logger: ctx.logger.child({ component: 'logo-worker' }) });
  app.addHook('onClose', () => logoCodec.close());
  await registerRoutes(app, ctx, webApp, { ...options, logoCodec });
  return app;
}

/**
 * Every route, in the scope that says who may call it (http/route-access.ts). A route's scope is its
 * authorisation: whatever spelling of its path a request uses, it passes the scope's check first.
 */
/**
 * Unknown paths under /api/admin/ belong to the admin scope too: a stranger gets the scope's 401 and
 * learns nothing of which admin routes exist; an admin gets a 404.
 */
function registerUnknownAdminRoutes(scope: FastifyInstance): void {
  // Hidden from the OpenAPI document: it answers paths that are no operation.
  scope.all('/api/admin/*', { schema: { hide: true } }, () => Promise.reject(new NotFoundError()));
}

async function registerRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  webApp: WebApp,
  options: BuildAppOptions & { logoCodec: LogoCodec },
): Promise<void> {
  // One per app: its provider metadata cache serves the sign-in and the admins' configuration test.
  const oidc = new OidcService(ctx);
  await registerAccessScope(app, ctx, 'public', async (scope) => {
    await registerArea(scope, 'Sign-in', (area) => registerSignInRoutes(area, ctx));
    await registerArea(scope, 'SAML', (area) => registerSamlRoutes(area, ctx));
    await registerArea(scope, 'OpenID Connect', (area) => registerOidcRoutes(area, ctx, oidc));
    // Signing in with a passkey alone: guarded by the single-use challenge and the signature, as the
    // password form is by the password; each realm's setting turns it off.
    await registerArea(scope, 'Passkeys', (area) => {
      registerPasskeySignInRoutes(area, ctx, 'user');
      registerPasskeySignInRoutes(area, ctx, 'admin');
    });
    await registerArea(scope, 'Status', (area) => registerPublicStatusRoutes(area, ctx, webApp));
    await registerArea(scope, 'Branding', (area) => registerBrandingRoutes(area, ctx));
    await registerArea(scope, 'Agent installation', (area) =>
      registerAgentInstallRoutes(area, ctx, {
        agent: options.agentDistribution ?? loadAgentDistribution(),
        client: options.clientDistribution ?? loadAgentDistribution(DEFAULT_CLIENT_DISTRIBUTION_PATHS),
      }),
    );
    await registerArea(scope, 'Documentation', (area) => {
      registerDocsRoutes(area);
      registerOpenApiRoutes(area);
    });
    await registerArea(scope, 'Health', (area) => registerHealthRoutes(area, ctx, options.clockWatch));
    await registerArea(scope, 'Web app', (area) => registerWebApp(area, webApp));
  });
  await registerAccessScope(app, ctx, 'user-any-stage', async (scope) => {
    await registerArea(scope, 'Second factor', (area) => registerUserOtpRoutes(area, ctx));
    await registerArea(scope, 'Passkeys', (area) => registerPasskeyCeremonyRoutes(area, ctx, 'user'));
  });
  await registerAccessScope(app, ctx, 'user', async (scope) => {
    await registerArea(scope, 'Status', (area) => registerUserStatusRoutes(area, ctx));
    await registerArea(scope, 'Grants', (area) => registerGrantRoutes(area, ctx));
    await registerArea(scope, 'Password', (area) => registerPasswordRoutes(area, ctx));
    await registerArea(scope, 'Language', (area) => registerUserLanguageRoutes(area, ctx));
    await registerArea(scope, 'Passkeys', (area) => registerPasskeyCredentialRoutes(area, ctx, 'user'));
  });
  await registerAccessScope(app, ctx, 'admin-any-stage', async (scope) => {
    await registerArea(scope, 'Admin session', (area) => registerAdminSessionRoutes(area, ctx));
    await registerArea(scope, 'Second factor', (area) => registerAdminOtpRoutes(area, ctx));
    await registerArea(scope, 'Passkeys', (area) => registerPasskeyCeremonyRoutes(area, ctx, 'admin'));
  });
  await registerAccessScope(app, ctx, 'admin', async (scope) => {
    await registerArea(scope, 'Status', (area) => registerAdminStatusRoutes(area, ctx));
    await registerArea(scope, 'Language', (area) => registerAdminLanguageRoutes(area, ctx));
    await registerArea(scope, 'Passkeys', (area) => registerPasskeyCredentialRoutes(area, ctx, 'admin'));
    await registerArea(scope, 'Sessions', (area) => registerSessionRoutes(area, ctx));
    await registerArea(scope, 'Users', (area) => registerUserRoutes(area, ctx));
    await registerArea(scope, 'Administrators', (area) => registerAdminRoutes(area, ctx));
    await registerArea(scope, 'Licence', (area) => registerLicenceRoutes(area, ctx));
    await registerArea(scope, 'Groups', (area) => registerGroupRoutes(area, ctx));
    await registerArea(scope, 'API keys', (area) => registerApiKeyRoutes(area, ctx));
    await registerArea(scope, 'Audit log', (area) => registerLogRoutes(area, ctx));
    await registerArea(scope, 'Settings', (area) =>
      registerSettingsRoutes(area, ctx, options.onConfigChanged ?? (() => Promise.resolve()), options.logoCodec),
    );
    await registerArea(scope, 'OpenID Connect', (area) => registerOidcAdminRoutes(area, ctx, oidc));
    await registerArea(scope, 'Backends', (area) => registerBackendRoutes(area, ctx));
    await registerArea(scope, 'Knocs', (area) => registerKnocRoutes(area, ctx));
    await registerArea(scope, 'Break-glass grants', (area) => registerBreakGlassRoutes(area, ctx));
    await registerArea(scope, 'Knoc tests', (area) => registerKnocTestRoutes(area, ctx));
    await registerArea(scope, 'Agents', (area) => registerAgentRoutes(area, ctx));
    registerUnknownAdminRoutes(scope);
  });
  // /api/v1, the API for machines: authenticated by API keys (or, for allowlists, by address) instead of
  // sessions. The one POST (the machine sign-in) gets the Origin check like any other, which a
  // non-browser client, sending no Origin, passes.
  await registerAccessScope(app, ctx, 'api-key', async (scope) => {
    await registerArea(scope, 'Allowlists', (area) => registerAllowlistRoutes(area, ctx));
    await registerArea(scope, 'User sessions (v1)', (area) => registerUserSessionRoutes(area, ctx));
    await registerArea(scope, 'Machine sign-in (v1)', (area) => registerKeySignInRoutes(area, ctx));
  });
  const hub = options.agentHub;
  if (hub !== undefined) {
    await registerAccessScope(app, ctx, 'agent', (scope) =>
      registerArea(scope, 'Agent connection', (area) => hub.register(area)),
    );
  }
}
