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

export interface AdminClient {
  get<T = unknown>(url: string): Promise<ApiAnswer<T>>;
  post<T = unknown>(url: string, payload?: unknown): Promise<ApiAnswer<T>>;
  put<T = unknown>(url: string, payload?: unknown): Promise<ApiAnswer<T>>;
  delete<T = unknown>(url: string): Promise<ApiAnswer<T>>;
  request<T = unknown>(method: AdminMethod, url: string, payload?: unknown): Promise<ApiAnswer<T>>;
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
 * The admin API as a signed-in admin's browser would call it: `cookie` (from signInAdmin, or
 * RouteCallers) on every request, and a same-origin Origin header on state changes so the
 * cross-site guard lets them through. Answers are never asserted here; tests look at `status`.
 *
 *     const admin = adminClient(t.app, await signInAdmin(t.app, 'ops', password));
 *     const { status, body } = await admin.post('/api/admin/agents', { Name: 'edge' });
 *     const agents = await admin.data('GET', '/api/admin/agents', AgentListResponse);
 */
export function adminClient(app: FastifyInstance, cookie: string, options: AdminClientOptions = {}): AdminClient {
  const origin = options.origin === undefined ? ADMIN_CLIENT_ORIGIN : options.origin;
  const request = async <T>(method: AdminMethod, url: string, payload?: unknown): Promise<ApiAnswer<T>> => {
    const headers: Record<string, string> = { host: ADMIN_CLIENT_HOST, cookie, ...options.headers };
    if (method !== 'GET' && origin !== null) headers.origin = origin;
    const response = await app.inject({
      method,
      url,
      headers,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return { status: response.statusCode, body: parseBody(response) as T, headers: response.headers, response };
  };
  return {
    request,
    get: (url) => request('GET', url),
    post: (url, payload) => request('POST', url, payload),
    put: (url, payload) => request('PUT', url, payload),
    delete: (url) => request('DELETE', url),
    data: async (method, url, schema, payload) => {
      const answer = await request(method, url, payload);
      if (answer.status !== 200) throw new Error(`${method} ${url} answered ${answer.status}: ${answer.response.body}`);
      return schema.parse(answer.body).data;
    },
  };
}
