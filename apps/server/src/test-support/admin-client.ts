import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { z } from 'zod';

/** The host every admin client request names, and the Origin a browser on that page would send. */
export const ADMIN_CLIENT_HOST = 'postern.test';
export const ADMIN_CLIENT_ORIGIN = `http://${ADMIN_CLIENT_HOST}`;

export type AdminMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** What the server answered: the status and the parsed JSON body (the text when it is not JSON). */
export interface ApiAnswer<T = unknown> {
  status: number;
  body: T;
  headers: LightMyRequestResponse['headers'];
  /** The raw response, for anything else (cookies, the body text). */
  response: LightMyRequestResponse;
}

export interface AdminClientOptions {
  /**
   * The Origin state-changing requests send; a browser on this server's page by default. `null`
   * sends none (a non-browser client). GET requests send none, as browsers do not for same-origin GETs.
   */
  origin?: string | null;
  /** Extra headers every request sends. */
  headers?: Record<string, string>;
}

/** What one request adds to the client's own: headers (`if-none-match`, …), the caller's address. */
export interface RequestExtras {
  headers?: Record<string, string>;
  /** The address the request comes from (app.inject's 127.0.0.1 by default). */
  remoteAddress?: string;
}

export interface AdminClient {
  get<T = unknown>(url: string, extras?: RequestExtras): Promise<ApiAnswer<T>>;
  post<T = unknown>(url: string, payload?: unknown, extras?: RequestExtras): Promise<ApiAnswer<T>>;
  put<T = unknown>(url: string, payload?: unknown, extras?: RequestExtras): Promise<ApiAnswer<T>>;
  delete<T = unknown>(url: string, extras?: RequestExtras): Promise<ApiAnswer<T>>;
  request<T = unknown>(
    method: AdminMethod,
    url: string,
    payload?: unknown,
    extras?: RequestExtras,
  ): Promise<ApiAnswer<T>>;
  /**
   * The `data` of a successful answer, checked against the protocol's response schema (say
   * `AgentListResponse`). Throws, naming the status and body, unless the server answered 200.
   */
  data<S extends z.ZodType<{ data: unknown }>>(
    method: AdminMethod,
    url: string,
    schema: S,
    payload?: unknown,
  ): Promise<z.infer<S>['data']>;
}

function parseBody(response: LightMyRequestResponse): unknown {
  if (response.body === '') return null;
  const type = response.headers['content-type'];
  return typeof type === 'string' && type.includes('json') ? (JSON.parse(response.body) as unknown) : response.body;
}

/**
 * The admin API as a signed-in admin's browser would call it: `cookie` (from givenAdminSession,
 * signInAdmin or RouteCallers) on every request, and a same-origin Origin header on state changes so the
 * cross-site guard lets them through. Answers are never asserted here; tests look at `status`.
 *
 *     const admin = adminClient(t.app, await givenAdminSession(t));
 *     const { status, body } = await admin.post('/api/admin/agents', { Name: 'edge' });
 *     const agents = await admin.data('GET', '/api/admin/agents', AgentListResponse);
 */
export function adminClient(app: FastifyInstance, cookie: string, options: AdminClientOptions = {}): AdminClient {
  const origin = options.origin === undefined ? ADMIN_CLIENT_ORIGIN : options.origin;
  const request = async <T>(
    method: AdminMethod,
    url: string,
    payload?: unknown,
    extras: RequestExtras = {},
  ): Promise<ApiAnswer<T>> => {
    const headers: Record<string, string> = { host: ADMIN_CLIENT_HOST, cookie, ...options.headers };
    if (method !== 'GET' && origin !== null) headers.origin = origin;
    Object.assign(headers, extras.headers);
    const response = await app.inject({
      method,
      url,
      headers,
      ...(payload === undefined ? {} : { payload: payload as object }),
      ...(extras.remoteAddress === undefined ? {} : { remoteAddress: extras.remoteAddress }),
    });
    return { status: response.statusCode, body: parseBody(response) as T, headers: response.headers, response };
  };
  return {
    request,
    get: (url, extras) => request('GET', url, undefined, extras),
    post: (url, payload, extras) => request('POST', url, payload, extras),
    put: (url, payload, extras) => request('PUT', url, payload, extras),
    delete: (url, extras) => request('DELETE', url, undefined, extras),
    data: async (method, url, schema, payload) => {
      const answer = await request(method, url, payload);
      if (answer.status !== 200) throw new Error(`${method} ${url} answered ${answer.status}: ${answer.response.body}`);
      return schema.parse(answer.body).data;
    },
  };
}
