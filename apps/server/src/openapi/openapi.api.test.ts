import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiKeyCreateBody, ErrorCodes } from '@postern/protocol';
import { useTestApp } from '../test-support/use-test-app.js';
import { CALLER_ADDRESS, RouteCallers } from '../test-support/route-callers.js';
import { routeTable, type RouteAccess, type RouteTableEntry } from '../http/route-access.js';
import { API_AREAS } from './api-areas.js';
import { OPENAPI_PATH } from './openapi.js';

/** The parts of an OpenAPI 3.1 document these tests read. */
interface Operation {
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> };
  responses: Record<string, unknown>;
}
interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
  tags: { name: string }[];
}

/**
 * Routes the document leaves out, each with its reason. Anything else in the route table must be in
 * the document, so a route added tomorrow without a description fails here.
 */
const NOT_DESCRIBED: { rule: (route: RouteTableEntry, table: RouteTableEntry[]) => boolean; reason: string }[] = [
  {
    // Fastify answers HEAD for every GET by itself; OpenAPI readers know HEAD from the GET.
    rule: (route, table) =>
      route.method === 'HEAD' && table.some((other) => other.method === 'GET' && other.url === route.url),
    reason: 'the automatic HEAD twin of a described GET',
  },
  {
    rule: (route) => route.url === '/api/admin/*',
    reason: 'the catch-all that answers unknown admin paths (401, or 404 for an admin): no operation',
  },
];

/** The security scheme each access scope's routes must name (public routes name none). */
const SCHEME_OF_ACCESS: Record<RouteAccess, string | null> = {
  public: null,
  user: 'userSession',
  'user-any-stage': 'userSession',
  admin: 'adminSession',
  'admin-any-stage': 'adminSession',
  'api-key': 'apiKeyBasic',
  agent: 'agentToken',
};

/** Fastify's `/a/:id/*` as OpenAPI's `/a/{id}/{*}`. */
function openApiPath(url: string): string {
  return url.replace(/:(\w+)/g, '{$1}').replace('*', '{*}');
}

/** Every `$ref` anywhere in the document. */
function refsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    key === '$ref' && typeof inner === 'string' ? [inner] : refsIn(inner),
  );
}

/** What a local JSON pointer (`#/components/schemas/Error`) points at in the document, if anything. */
function resolvePointer(document: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  return ref
    .slice(2)
    .split('/')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<unknown>(
      (node, part) => (typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[part] : undefined),
      document,
    );
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** One app for the file: the document describes it, and the validation tests call it. */
const t = useTestApp('sqlite');

describe('the OpenAPI document (sqlite)', () => {
  let table: RouteTableEntry[];
  let document: OpenApiDocument;

  // The document and the route table are the app's, the same for every test: read once.
  beforeAll(async () => {
    table = routeTable(t.app);
    const response = await t.app.inject({ method: 'GET', url: OPENAPI_PATH });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    document = response.json<OpenApiDocument>();
  });

  const operations = () =>
    Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
    );

  it('is served to anyone', () => {
    const route = table.find((entry) => entry.method === 'GET' && entry.url === OPENAPI_PATH);
    expect(route?.access).toBe('public');
  });

  it('describes every route of the route table, by method and path', () => {
    const missing = table
      .filter((route) => !NOT_DESCRIBED.some(({ rule }) => rule(route, table)))
      .filter((route) => document.paths[openApiPath(route.url)]?.[route.method.toLowerCase()] === undefined)
      .map((route) => `${route.method} ${route.url}`);
    expect(missing).toEqual([]);
  });

  it('describes nothing that is not a route', () => {
    const routes = new Set(table.map((route) => `${route.method.toLowerCase()} ${openApiPath(route.url)}`));
    const stale = operations()
      .map(({ method, path }) => `${method} ${path}`)
      .filter((operation) => !routes.has(operation));
    expect(stale).toEqual([]);
  });

  it('is structurally OpenAPI 3.1: version, info, paths, components, and only HTTP methods in paths', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.title).toBe('Postern API');
    expect(document.info.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(Object.keys(document.paths).length).toBeGreaterThan(50);
    expect(document.components.schemas).toBeTypeOf('object');
    for (const [path, item] of Object.entries(document.paths)) {
      expect(path.startsWith('/')).toBe(true);
      for (const [method, operation] of Object.entries(item)) {
        expect(HTTP_METHODS).toContain(method);
        expect(Object.keys(operation.responses).length).toBeGreaterThan(0);
      }
    }
  });

  it('resolves every $ref inside the document', () => {
    const refs = refsIn(document);
    expect(refs).toContain('#/components/schemas/Error');
    expect(refs.filter((ref) => resolvePointer(document, ref) === undefined)).toEqual([]);
  });

  it('names every path parameter of a path among the operation’s parameters', () => {
    const wrong = operations().flatMap(({ path, method, operation }) => {
      const named = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] ?? '');
      const given = (operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
      return named.every((name) => given.includes(name)) ? [] : [`${method} ${path}`];
    });
    expect(wrong).toEqual([]);
  });

  it('tags each operation with one area of the document’s tag list', () => {
    const areas = document.tags.map((tag) => tag.name);
    expect(areas).toEqual(Object.keys(API_AREAS));
    const wrong = operations()
      .filter(({ operation }) => operation.tags?.length !== 1 || !areas.includes(operation.tags[0] ?? ''))
      .map(({ method, path }) => `${method} ${path}`);
    expect(wrong).toEqual([]);
  });

  it('says how each route is called: the session cookie, the API key or the agent token of its scope', () => {
    const wrong = table
      .filter((route) => !NOT_DESCRIBED.some(({ rule }) => rule(route, table)))
      .flatMap((route) => {
        const security = document.paths[openApiPath(route.url)]?.[route.method.toLowerCase()]?.security;
        const scheme = SCHEME_OF_ACCESS[route.access];
        const ok =
          scheme === null
            ? security?.length === 0
            : security !== undefined && security.some((requirement) => scheme in requirement);
        return ok ? [] : [`${route.method} ${route.url} (${route.access}): ${JSON.stringify(security)}`];
      });
    expect(wrong).toEqual([]);
    for (const scheme of Object.values(SCHEME_OF_ACCESS)) {
      if (scheme !== null) expect(document.components.securitySchemes).toHaveProperty(scheme);
    }
  });

  it('takes request bodies from the zod schema the route validates with', () => {
    const body = document.paths['/api/admin/api-keys']?.post?.requestBody?.content['application/json']?.schema;
    const fromZod = z.toJSONSchema(ApiKeyCreateBody, { io: 'input' }) as { properties: object };
    expect(Object.keys(body?.properties ?? {}).sort()).toEqual(Object.keys(fromZod.properties).sort());
    const licence = document.paths['/api/admin/settings/license']?.get?.parameters ?? [];
    expect(licence).toContainEqual(expect.objectContaining({ name: 'refresh', in: 'query' }));
  });

  it('describes the machine API’s API key as HTTP Basic (apiuser) or Bearer, and allowlists as also open by address', () => {
    expect(document.paths['/api/v1/user_sessions']?.get?.security).toEqual([{ apiKeyBasic: [] }, { apiKeyBearer: [] }]);
    expect(document.paths['/api/v1/allowlists/{aclId}/{token}.json']?.get?.security).toEqual([
      { apiKeyBasic: [] },
      { apiKeyBearer: [] },
      {},
    ]);
    expect(JSON.stringify(document.components.securitySchemes.apiKeyBasic)).toContain('apiuser');
  });
});

/** The answer is 400 `{Err: 'err.badRequest', Extra}` and nothing else, with Extra naming the field. */
function expectBadRequestNaming(response: { statusCode: number; json: <T>() => T }, field: string): void {
  expect(response.statusCode).toBe(400);
  const body = response.json<Record<string, unknown>>();
  expect(Object.keys(body).sort()).toEqual(['Err', 'Extra']);
  expect(body.Err).toBe(ErrorCodes.badRequest);
  expect(String(body.Extra)).toContain(field);
}

describe('validation failures on routes with response schemas (sqlite)', () => {
  let callers: RouteCallers;
  beforeEach(async () => {
    callers = await RouteCallers.create(t.ctx);
  });

  it('are 400 {Err: err.badRequest, Extra} even where the route declares its own 400 answer', async () => {
    // POST /api/login declares 400, 401 and 403 answers; Fastify's own validation error would not
    // match them, so the error handler must have shaped it first.
    const response = await t.app.inject({ method: 'POST', url: '/api/login', payload: { Password: 'x' } });
    expectBadRequestNaming(response, 'UserName');
  });

  it('are 400 {Err: err.badRequest, Extra} on an admin route that declares only its 200 answer', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/admin/api-keys',
      remoteAddress: CALLER_ADDRESS,
      headers: await callers.headers('admin'),
      payload: { Name: 'monitoring', Scopes: [] },
    });
    expectBadRequestNaming(response, 'Scopes');
  });
});
