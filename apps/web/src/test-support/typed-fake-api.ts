import { onTestFinished, vi } from 'vitest';
import type { z } from 'zod';
import {
  ErrorCodes,
  AdminStatusResponse,
  AgentListResponse,
  SystemStatusResponse,
  ThemeResponse,
  type ApiErrorBody,
  type ErrorCode,
} from '@postern/protocol';
import { adminStatus } from './fixtures';

/*
 * A fake Postern server for admin screen tests, keyed by "METHOD /path" with `:name` parameters, whose
 * answers are checked against the protocol's response schemas, and which fails the test on any
 * request it has no route for. (fake-api.ts is the older, untyped one: unknown paths answer 404 there.)
 *
 *     const api = installTypedFakeApi({
 *       'GET /api/admin/agents': data(AgentListResponse, [agent()]),
 *       'PUT /api/admin/agents/:id': ({ params, body }) => data(AgentResponse, { ...agent(), ID: params.id }),
 *       'DELETE /api/admin/agents/:id': apiError(409, ErrorCodes.conflict),
 *     });
 *     ...
 *     expect(api.calls('PUT /api/admin/agents/:id')[0]?.body).toEqual({ ... });
 */

export type FakeMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/** A route: "GET /api/admin/agents/:id". */
export type FakeRoute = `${FakeMethod} /${string}`;

/** One canned answer; build it with `data`, `json` or `apiError` so it matches the protocol. */
export interface TypedAnswer {
  readonly status: number;
  /** Sent as JSON; null sends an empty body. */
  readonly body: unknown;
  readonly headers?: Record<string, string>;
}

/** A request the app made, as the fake server saw it, with the route's `:name` parameters. */
export interface TypedRequest {
  method: string;
  path: string;
  /** The route key it matched ("PUT /api/admin/agents/:id"), or null when none did. */
  route: FakeRoute | null;
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  headers: Record<string, string>;
}

/**
 * An answer, an Error (a network failure), or a function of the request giving one; a function may
 * answer later (a promise) to hold the call while the test looks at the screen.
 */
export type TypedHandler =
  TypedAnswer | Error | ((request: TypedRequest) => TypedAnswer | Error | Promise<TypedAnswer | Error>);

/**
 * `body` answered with `status`, after checking it against `schema` (a protocol response schema):
 * a fixture that no longer matches the protocol fails where it is built, not deep in a component.
 */
export function json<S extends z.ZodType>(schema: S, body: z.input<S>, status = 200): TypedAnswer {
  return { status, body: schema.parse(body) };
}

/** A successful answer `{ data: value }`, checked against the envelope schema (`AgentListResponse`). */
export function data<S extends z.ZodType<{ data: unknown }, { data: unknown }>>(
  schema: S,
  value: z.input<S>['data'],
): TypedAnswer {
  return json(schema, { data: value } as z.input<S>);
}

/** A failed call as the server sends it: `{ Err, Extra? }`. */
export function apiError(status: number, err: ErrorCode, extra?: string): TypedAnswer {
  const body: ApiErrorBody = extra === undefined ? { Err: err } : { Err: err, Extra: extra };
  return { status, body };
}

/** An answer with no content, `{ data: null }` (deletes, logout). */
export const EMPTY_OK: TypedAnswer = { status: 200, body: { data: null } };

export interface TypedFakeApiOptions {
  /** Whether an admin is signed in: GET /api/admin/status answers adminStatus() (default) or 401. */
  admin?: boolean;
}

/** What admin screens call on every page: the theme, the bundle hash and the admin's status. */
function defaultRoutes(options: TypedFakeApiOptions): Partial<Record<FakeRoute, TypedHandler>> {
  return {
    'GET /api/theme': data(ThemeResponse, {
      Accent: 'grape',
      HighAccessibility: false,
      LogoURL: '',
      LightModeLogoURL: '',
    }),
    // No single sign-on: a login page then asks for no SAML metadata (and this fake answers none).
    'GET /api/system_status': data(SystemStatusResponse, {
      IPApi: '',
      JsBundleHash: 'build-1',
      UserSAMLConfigured: false,
      AdminSAMLConfigured: false,
    }),
    'GET /api/admin/status':
      options.admin === false ? apiError(401, 'err.invalidSession') : data(AdminStatusResponse, adminStatus()),
    'GET /api/status': apiError(401, 'err.invalidSession'),
    // The banner area reads the agents on every admin page of a licensed server (agent versions).
    'GET /api/admin/agents': data(AgentListResponse, []),
    'POST /api/logout': EMPTY_OK,
    'POST /api/admin/logout': EMPTY_OK,
  };
}

interface CompiledRoute {
  key: FakeRoute;
  method: string;
  pattern: RegExp;
  names: string[];
  handler: TypedHandler;
}

function compile(key: FakeRoute, handler: TypedHandler): CompiledRoute {
  const space = key.indexOf(' ');
  const path = key.slice(space + 1);
  const names: string[] = [];
  const source = path
    .split('/')
    .map((segment) => {
      if (segment.startsWith(':')) {
        names.push(segment.slice(1));
        return '([^/]+)';
      }
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return { key, method: key.slice(0, space), pattern: new RegExp(`^${source}$`), names, handler };
}

function parseRequestBody(body: BodyInit | null | undefined): unknown {
  if (typeof body !== 'string') return body ?? undefined;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return body;
  }
}

/**
 * Replaces the global fetch with the fake server. Routes a test gives replace the defaults with the
 * same key; exact paths win over patterns. A request no route matches is answered 501 and fails the
 * test when it ends (or at once through `assertAllMatched`), naming the request.
 */
export function installTypedFakeApi(
  routes: Partial<Record<FakeRoute, TypedHandler>> = {},
  options: TypedFakeApiOptions = {},
) {
  const table = Object.entries({ ...defaultRoutes(options), ...routes }) as [FakeRoute, TypedHandler][];
  const compiled = table
    .map(([key, handler]) => compile(key, handler))
    // Exact routes before patterns, so "/agents/new" can be answered apart from "/agents/:id".
    .sort((a, b) => a.names.length - b.names.length);
  const requests: TypedRequest[] = [];
  const unmatched: string[] = [];

  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : input.toString(), 'http://localhost');
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    let match: { route: CompiledRoute; params: Record<string, string> } | null = null;
    for (const route of compiled) {
      const found = route.method === method ? route.pattern.exec(url.pathname) : null;
      if (found) {
        const params = Object.fromEntries(route.names.map((name, i) => [name, decodeURIComponent(found[i + 1] ?? '')]));
        match = { route, params };
        break;
      }
    }
    const request: TypedRequest = {
      method,
      path: url.pathname,
      route: match?.route.key ?? null,
      params: match?.params ?? {},
      query: url.searchParams,
      body: parseRequestBody(init?.body),
      headers: Object.fromEntries(new Headers(init?.headers).entries()),
    };
    requests.push(request);
    if (match === null) {
      const description = `${method} ${url.pathname}${url.search}`;
      unmatched.push(description);
      // A real code, so the screen under test renders it like any server error; the test still fails.
      return new Response(JSON.stringify({ Err: ErrorCodes.internalServerError, Extra: description }), {
        status: 501,
        headers: { 'content-type': 'application/json' },
      });
    }
    const handler = match.route.handler;
    const answer = await (typeof handler === 'function' ? handler(request) : handler);
    if (answer instanceof Error) throw answer;
    const text = answer.body === null || answer.body === undefined ? '' : JSON.stringify(answer.body);
    return new Response(text, {
      status: answer.status,
      headers: { 'content-type': 'application/json', ...answer.headers },
    });
  });
  vi.stubGlobal('fetch', fetchMock);

  const assertAllMatched = () => {
    if (unmatched.length > 0) {
      throw new Error(`The fake API has no route for: ${unmatched.join(', ')}. Add them to installTypedFakeApi.`);
    }
  };
  onTestFinished(assertAllMatched);

  return {
    fetchMock,
    requests,
    /** Requests no route matched, as "METHOD /path?query". */
    unmatched,
    assertAllMatched,
    /** The requests that matched one route key ("PUT /api/admin/agents/:id"). */
    calls: (route: FakeRoute) => requests.filter((request) => request.route === route),
  };
}
