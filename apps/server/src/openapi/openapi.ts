import fastifySwagger, { type SwaggerTransform } from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { API_DOCS_PATH, API_KEY_BASIC_USER, ApiErrorBody, POSTERN_VERSION } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { sessionCookieName } from '../http/cookies.js';
import type { RouteAccess } from '../http/route-access.js';
import { API_AREAS } from './api-areas.js';

/** Where the server serves its OpenAPI document. */
export const OPENAPI_PATH = '/api/openapi.json';

type SecurityRequirement = Record<string, string[]>;

/**
 * How each access scope's routes are called, as OpenAPI security requirements (alternatives). The
 * scope is the route's authorisation (http/route-access.ts), so the document cannot disagree with it.
 */
const SECURITY_BY_ACCESS: Record<RouteAccess, SecurityRequirement[]> = {
  public: [],
  user: [{ userSession: [] }],
  'user-any-stage': [{ userSession: [] }],
  admin: [{ adminSession: [] }],
  'admin-any-stage': [{ adminSession: [] }],
  'api-key': [{ apiKeyBasic: [] }, { apiKeyBearer: [] }],
  agent: [{ agentToken: [] }],
};

/** The schemes named above, exactly as the server reads them (cookie names follow the deployment's HTTP mode). */
function securitySchemes(insecureHttp: boolean) {
  const sessionNote =
    'Set by signing in (and by SAML); a state-changing call must also come from the portal’s own Origin.';
  return {
    userSession: {
      type: 'apiKey',
      in: 'cookie',
      name: sessionCookieName('user', insecureHttp),
      description: `A user's session cookie. ${sessionNote}`,
    },
    adminSession: {
      type: 'apiKey',
      in: 'cookie',
      name: sessionCookieName('admin', insecureHttp),
      description: `An administrator's session cookie. ${sessionNote}`,
    },
    apiKeyBasic: {
      type: 'http',
      scheme: 'basic',
      description: `An API key as HTTP Basic: user name \`${API_KEY_BASIC_USER}\`, the key as the password.`,
    },
    apiKeyBearer: { type: 'http', scheme: 'bearer', description: 'An API key as `Authorization: Bearer <key>`.' },
    agentToken: {
      type: 'http',
      scheme: 'bearer',
      description: 'An agent’s token as `Authorization: Bearer <token>`, then a key proof inside the WebSocket.',
    },
  } as const;
}

/**
 * Every error answer, whatever the route (http/error-handler.ts). One named component, so the
 * document refers to it instead of repeating it in each operation.
 */
const ErrorAnswer = ApiErrorBody.meta({
  id: 'Error',
  description: 'An error: `Err` is the code (`err.…`), `Extra` names the field or gives detail.',
});

/**
 * The zod schemas the routes validate with, turned into JSON Schema by fastify-type-provider-zod,
 * plus the error answer as the default response of every operation that declares its answers, the route's area as its tag and its
 * scope's security, unless the route declares its own. Only the document sees these additions: the
 * route's own schema, which Fastify validates and serialises with, is not changed.
 */
const transform: SwaggerTransform = (input) => {
  // A route that declares no answers (text, redirects, files) keeps the plain "200: Default Response".
  const declared = input.schema?.response as object | undefined;
  const response = declared === undefined ? undefined : { default: ErrorAnswer, ...declared };
  const result = jsonSchemaTransform({ ...input, schema: { ...input.schema, ...(response && { response }) } });
  const schema = result.schema ?? {};
  if (schema.hide === true) return result;
  const { area, access } = input.route.config ?? {};
  return {
    ...result,
    schema: {
      ...schema,
      ...(area === undefined ? {} : { tags: [area] }),
      security: schema.security ?? SECURITY_BY_ACCESS[access ?? 'public'],
    },
  };
};

/**
 * Records every route for the OpenAPI document; call before any route is registered. The document
 * is generated once, when the app is ready (a schema that cannot be described stops the start), and
 * served from that cache.
 */
export async function installOpenApi(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Postern API',
        version: POSTERN_VERSION,
        description:
          'Every route of this Postern server, from the schemas the routes validate with. Answers are ' +
          '`{"data": …}`; errors are `{"Err": "err.…", "Extra": "…"}`. Using the API with an API key: ' +
          `${API_DOCS_PATH}.`,
      },
      ...(ctx.config.publicUrl === null ? {} : { servers: [{ url: ctx.config.publicUrl }] }),
      components: { securitySchemes: securitySchemes(ctx.config.insecureHttp) },
      tags: Object.entries(API_AREAS).map(([name, description]) => ({ name, description })),
    },
    transform,
    transformObject: jsonSchemaTransformObject,
  });
  app.addHook('onReady', (done) => {
    try {
      app.swagger();
      done();
    } catch (error) {
      done(error instanceof Error ? error : new Error(String(error)));
    }
  });
}

/** GET /api/openapi.json: the document. It describes the API and holds no data of this installation. */
export function registerOpenApiRoutes(app: FastifyInstance): void {
  app.get(OPENAPI_PATH, { schema: { summary: 'This OpenAPI 3.1 document' } }, async (_request, reply) =>
    reply.header('cache-control', 'no-cache').send(app.swagger()),
  );
}
