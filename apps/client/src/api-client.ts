import type { z } from 'zod';
import {
  AclEntryResponse,
  ApiErrorBody,
  EmptyResponse,
  LoginResponse,
  UserStatusResponse,
  V1_LOGIN_PATH,
  type AclEntry,
  type UserSessionInfo,
  type UserStatus,
} from '@postern/protocol';
import { CLIENT_VERSION } from './version.js';

/** How long one request may take before the server counts as unreachable. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;

/** The server answered, with an error (`{Err, Extra}` when it sent one). */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    /** What was asked, for messages: `POST /api/grant`. */
    readonly operation: string,
    readonly status: number,
    /** The `Err` code (`err.unauthorised`), or null when the answer carried none (a proxy's page). */
    readonly code: string | null,
    readonly extra: string | undefined,
    /** Seconds from Retry-After, when the server sent it. */
    readonly retryAfterSeconds: number | null,
  ) {
    super(
      `${operation} answered ${status}${code === null ? '' : ` ${code}`}${extra === undefined ? '' : ` (${extra})`}`,
    );
  }
}

/** Why no usable answer came back. */
export type TransportProblem =
  /** No connection, a TLS failure, a reset or no answer in time. */
  | 'unreachable'
  /** A redirect: the configured server URL is not where Postern answers. */
  | 'redirect'
  /** A 2xx that is not what this API answers (a captive portal, a proxy's page, another program). */
  | 'unexpected';

/** No usable answer from the server. */
export class TransportError extends Error {
  override readonly name = 'TransportError';

  constructor(
    readonly problem: TransportProblem,
    message: string,
  ) {
    super(message);
  }
}

/** What a sign-in gives: the session cookie to send back, and the session's summary. */
export interface SignIn {
  /** `name=value` pairs for the Cookie header, as the server set them. */
  cookie: string;
  info: UserSessionInfo;
}

export interface ApiClientOptions {
  /** The server's base URL (scheme, host, optional path prefix; no trailing slash needed). */
  server: string;
  fetch?: typeof fetch;
  requestTimeoutMs?: number;
}

/** Per-call options: an abort signal (shutdown) on top of the request timeout. */
export interface CallOptions {
  signal?: AbortSignal;
}

/**
 * The slice of the Postern API a machine client uses: the key sign-in, then the user API with the
 * session cookie. Every answer is checked against the protocol's schema; every failure is an
 * ApiError (the server said no) or a TransportError (no usable answer).
 */
export class PosternApi {
  readonly server: string;
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;

  constructor(options: ApiClientOptions) {
    this.server = options.server.replace(/\/+$/, '');
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  /** POST /api/v1/login with the key in the Authorization header (never in the URL or a log). */
  async signIn(key: string, options: CallOptions = {}): Promise<SignIn> {
    const response = await this.#request('POST', V1_LOGIN_PATH, { authorization: `Bearer ${key}` }, {}, options);
    const info = (await this.#parse(response, `POST ${V1_LOGIN_PATH}`, LoginResponse)).data;
    const cookie = sessionCookie(response.headers);
    if (cookie === '') {
      throw new TransportError('unexpected', `the server signed in without setting a session cookie (${this.server})`);
    }
    return { cookie, info };
  }

  /** GET /api/status: the session, the address the server sees, and the user's knocs. */
  async status(cookie: string, options: CallOptions = {}): Promise<UserStatus> {
    const response = await this.#request('GET', '/api/status', { cookie }, undefined, options);
    return (await this.#parse(response, 'GET /api/status', UserStatusResponse)).data;
  }

  /** POST /api/grant for the request's own address (no discovered addresses). */
  async grant(cookie: string, aclId: string, options: CallOptions = {}): Promise<AclEntry> {
    const response = await this.#request('POST', '/api/grant', { cookie }, { ACLID: aclId, IPs: [] }, options);
    return (await this.#parse(response, 'POST /api/grant', AclEntryResponse)).data;
  }

  /** DELETE /api/sessions/current/granted-acls/{id}: ends this session's access to one knoc. */
  async revoke(cookie: string, aclId: string, options: CallOptions = {}): Promise<AclEntry> {
    const path = `/api/sessions/current/granted-acls/${encodeURIComponent(aclId)}`;
    const response = await this.#request('DELETE', path, { cookie }, undefined, options);
    return (await this.#parse(response, 'DELETE /api/sessions/current/granted-acls', AclEntryResponse)).data;
  }

  /** POST /api/logout: ends the session and every grant made in it. */
  async logout(cookie: string, options: CallOptions = {}): Promise<void> {
    const response = await this.#request('POST', '/api/logout', { cookie }, {}, options);
    await this.#parse(response, 'POST /api/logout', EmptyResponse);
  }

  async #request(
    method: string,
    path: string,
    headers: Record<string, string>,
    body: unknown,
    options: CallOptions,
  ): Promise<Response> {
    const url = `${this.server}${path}`;
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), this.#timeoutMs);
    const stop = () => timeout.abort();
    options.signal?.addEventListener('abort', stop, { once: true });
    if (options.signal?.aborted === true) timeout.abort();
    try {
      const response = await this.#fetch(url, {
        method,
        headers: {
          accept: 'application/json',
          'user-agent': `postern-client/${CLIENT_VERSION}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        // Never follow: a redirect would carry the key or the cookie somewhere the config does not name.
        redirect: 'manual',
        signal: timeout.signal,
      });
      if (response.status >= 300 && response.status < 400) {
        await response.body?.cancel();
        const location = response.headers.get('location');
        throw new TransportError(
          'redirect',
          `${url} redirects${location === null ? '' : ` to ${location}`}; set the server URL to where Postern answers`,
        );
      }
      return response;
    } catch (error) {
      if (error instanceof TransportError) throw error;
      if (options.signal?.aborted === true) throw new TransportError('unreachable', `${method} ${path} was cancelled`);
      if (timeout.signal.aborted) {
        throw new TransportError('unreachable', `no answer from ${this.server} within ${this.#timeoutMs / 1000} s`);
      }
      throw new TransportError('unreachable', `could not reach ${this.server}: ${networkReason(error)}`);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', stop);
    }
  }

  /** The answer's body as `schema`, or the ApiError / TransportError it amounts to. */
  async #parse<T extends z.ZodType>(response: Response, operation: string, schema: T): Promise<z.infer<T>> {
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw new TransportError('unreachable', `${operation}: the answer broke off: ${networkReason(error)}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (!response.ok) {
      const body = ApiErrorBody.safeParse(json);
      throw new ApiError(
        operation,
        response.status,
        body.success ? body.data.Err : null,
        body.success ? body.data.Extra : undefined,
        retryAfterSeconds(response.headers.get('retry-after')),
      );
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      throw new TransportError(
        'unexpected',
        `the answer to ${operation} from ${this.server} is not a Postern answer (is that the right server URL?)`,
      );
    }
    return parsed.data;
  }
}

/**
 * The Cookie header to send back: the first `name=value` of each Set-Cookie, whatever the name
 * (`__Host-postern_session`, or `postern_session` on a plain-HTTP server). Cookies being cleared
 * (empty value) are left out.
 */
export function sessionCookie(headers: Headers): string {
  return headers
    .getSetCookie()
    .map((line) => line.split(';', 1)[0]?.trim() ?? '')
    .filter((pair) => /^[^=\s]+=./.test(pair))
    .join('; ');
}

/** Retry-After as seconds (delta-seconds or an HTTP date), or null when absent or unreadable. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | null {
  if (header === null || header.trim() === '') return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/** TLS errors whose cure is trusting the server's CA. */
const UNTRUSTED_CERTIFICATE = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
]);

/** A one-line reason from fetch's error (the useful part is in its cause). */
function networkReason(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const code = typeof cause === 'object' && cause !== null && 'code' in cause ? String(cause.code) : '';
  const message = cause instanceof Error ? cause.message : String(cause);
  if (UNTRUSTED_CERTIFICATE.has(code)) {
    return `${message} (the server's certificate is not trusted; for a private CA set NODE_EXTRA_CA_CERTS to its certificate file)`;
  }
  return message;
}
