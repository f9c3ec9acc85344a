import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { Authenticator } from './auth/authenticator.js';
import { currentCallBudget } from './call-budget.js';
import { isPermanentStatus } from './http-status-error.js';
import { Redactor } from './redact.js';
import { type AttemptResult, DEFAULT_RETRY_POLICY, type RetryPolicy, withRetry } from './retry.js';
import { agentMetrics, vendorApiOutcome } from '../../metrics/agent-metrics.js';
import { isPermanentFailure } from '../outcomes.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

export interface HttpClientOptions {
  /** The vendor's name for messages ("fortios"). */
  name: string;
  /** Where the API lives: an http(s) URL without credentials; its path is a prefix of every call. */
  baseUrl: string;
  /** The backend's `Insecure`: accept any certificate, for this client's connections only. */
  insecure?: boolean;
  /** One call (one try) taking longer than this is given up (default {@link DEFAULT_TRY_TIMEOUT_MS}). */
  timeoutMs?: number;
  auth?: Authenticator;
  /** Further strings to keep out of errors and logs (the authenticator's are added). */
  secrets?: readonly string[];
  logger: Logger;
  retry?: Partial<RetryPolicy>;
  /** An answer bigger than this is refused. */
  maxBodyBytes?: number;
  /** Extra trusted CA certificates (PEM), for a device with a private CA. */
  ca?: string | Buffer;
}

export interface HttpRequest {
  method: HttpMethod;
  /** Beginning with '/', every variable segment encoded with {@link pathSegment}. */
  path: string;
  query?: Readonly<Record<string, string | undefined>>;
  /** Sent as JSON. */
  body?: unknown;
  /**
   * Sent form-encoded (application/x-www-form-urlencoded) instead of `body`: the XML APIs (PAN-OS)
   * take their parameters so, and a POST body keeps long commands out of the URL.
   */
  form?: Readonly<Record<string, string>>;
  headers?: Readonly<Record<string, string>>;
  /**
   * Safe to send twice. Default: every method but POST and PATCH. A POST whose repeat the vendor
   * answers "already exists" (and the caller counts as success) may say true.
   */
  idempotent?: boolean;
  timeoutMs?: number;
}

/** A vendor's answer, whatever its status. `body` is parsed JSON when it is JSON, else the text. */
export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export type HttpFailureKind = 'url' | 'network' | 'timeout' | 'tls' | 'redirect' | 'too-large' | 'auth';

/**
 * A call that got no usable answer. Its message names the call and never holds a secret. Transient
 * (worth retrying later) unless `permanent`: a URL that cannot work, or a login the device refused
 * for good (see outcomes.ts `isPermanentFailure`).
 */
export class HttpError extends Error {
  /** Retrying cannot help: the backend's URL is unusable, or the login was refused (401/403, invalid). */
  readonly permanent: boolean;

  constructor(
    message: string,
    readonly kind: HttpFailureKind,
    /** The request may have reached the device (so a non-idempotent call must not be repeated). */
    readonly sent: boolean,
    options: { permanent?: boolean } = {},
  ) {
    super(message);
    this.name = 'HttpError';
    this.permanent = options.permanent ?? kind === 'url';
  }
}

/**
 * A body checked against its schema ({ok:false} for a non-2xx status too), Trigger.dev's wrapZodFetch
 * shape. `permanent`: the status says retrying cannot help (401/403, 400/404/422); pass it on with
 * `failureFromAnswer(ip, result)` (outcomes.ts).
 */
export type ParsedResult<T> =
  | { ok: true; status: number; data: T }
  | { ok: false; status: number; error: string; retryable: boolean; permanent: boolean; body: unknown };

/**
 * One try without an answer for this long is given up (a vendor may set its own). With the runtime's
 * call budget (10 s without an answer, call-budget.ts) a silent device costs two tries, not four of 15 s.
 */
export const DEFAULT_TRY_TIMEOUT_MS = 5_000;
const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;
const TLS_ERROR_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'EPROTO',
]);

/** One path segment, percent-encoded (slashes and colons included: `kk_10.0.0.0/24`, IPv6 names). */
export function pathSegment(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * The HTTP client every vendor driver uses (node:http/https directly: no dependency, full control).
 * What it guarantees, per DESIGN's rule for outbound URLs:
 * - TLS verification is on unless this backend says Insecure, and that only for this client's own
 *   connection pool: nothing global changes.
 * - Every try has a time limit (5 s by default), and the whole call is bounded by the retry policy
 *   and by the driver call's budget when it runs under one (call-budget.ts, set by the runtime): a
 *   spent budget sends nothing more, ends a try in flight and stops the retry loop.
 * - Redirects are never followed: a 3xx is an error naming where it pointed, so a token is never
 *   sent to a host the admin did not configure.
 * - Secrets (the authenticator's and the ones given) are redacted from every error and log line.
 * - 429/502/503/504 and transport failures are retried with back-off for idempotent calls
 *   (see retry.ts); a 401 gets one new credential and one more try when the authenticator can renew.
 */
export class HttpClient {
  readonly name: string;
  readonly #base: URL;
  readonly #agent: http.Agent;
  readonly #transport: typeof http | typeof https;
  readonly #timeoutMs: number;
  readonly #auth: Authenticator | null;
  readonly #logger: Logger;
  readonly #policy: RetryPolicy;
  readonly #maxBodyBytes: number;
  readonly #redactor: Redactor;

  constructor(options: HttpClientOptions) {
    this.name = options.name;
    const extra = options.secrets ?? [];
    const auth = options.auth ?? null;
    this.#redactor = new Redactor(function* () {
      yield* extra;
      if (auth !== null) yield* auth.secrets();
    });
    let base: URL;
    try {
      base = new URL(options.baseUrl);
    } catch {
      throw new HttpError(`${this.name}: ${this.redact(options.baseUrl)} is not a URL`, 'url', false);
    }
    if (base.protocol !== 'https:' && base.protocol !== 'http:') {
      throw new HttpError(`${this.name}: only http and https URLs are allowed, not ${base.protocol}`, 'url', false);
    }
    if (base.username !== '' || base.password !== '') {
      throw new HttpError(`${this.name}: the URL must not carry credentials`, 'url', false);
    }
    base.search = '';
    base.hash = '';
    this.#base = base;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TRY_TIMEOUT_MS;
    this.#auth = auth;
    this.#logger = options.logger;
    this.#policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.#maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    if (base.protocol === 'https:') {
      this.#transport = https;
      this.#agent = new https.Agent({
        keepAlive: true,
        maxSockets: 4,
        rejectUnauthorized: options.insecure !== true,
        ...(options.ca === undefined ? {} : { ca: options.ca }),
      });
    } else {
      this.#transport = http;
      this.#agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    }
  }

  /** The origin calls go to, for messages. */
  get origin(): string {
    return this.#base.origin;
  }

  /** `text` with every known secret replaced. */
  redact(text: string): string {
    return this.#redactor.redact(text);
  }

  /**
   * Sends a call (with retries and one renewal after a 401) and returns the vendor's last answer,
   * whatever its status. Throws {@link HttpError} when no answer came.
   */
  async request(request: HttpRequest): Promise<HttpResponse> {
    try {
      const response = await this.#request(request);
      agentMetrics.vendorRequest(this.name, vendorApiOutcome(request.method, response.status));
      return response;
    } catch (error) {
      agentMetrics.vendorRequest(this.name, 'error');
      throw error;
    }
  }

  async #request(request: HttpRequest): Promise<HttpResponse> {
    const idempotent = request.idempotent ?? (request.method !== 'POST' && request.method !== 'PATCH');
    const first = await this.#authorized(request, idempotent);
    if (first.response.status !== 401 || this.#auth === null) return first.response;
    let renewed: boolean;
    try {
      renewed = await this.#auth.renew(first.credential);
    } catch (error) {
      throw new HttpError(
        `${this.#describe(request)}: the login failed: ${this.redact(errorText(error))}`,
        'auth',
        false,
        {
          permanent: isPermanentFailure(error),
        },
      );
    }
    if (!renewed) return first.response;
    this.#logger.info({ vendor: this.name }, 'vendor API refused the credential; trying once with a new one');
    return (await this.#authorized(request, idempotent)).response;
  }

  /** {@link request}, then the body checked with `schema` when the status is 2xx. */
  async requestParsed<S extends z.ZodType>(request: HttpRequest, schema: S): Promise<ParsedResult<z.output<S>>> {
    const response = await this.request(request);
    return this.parse(request, response, schema);
  }

  /** Checks a 2xx answer's body; any other status is {ok:false} with what the vendor said. */
  parse<S extends z.ZodType>(request: HttpRequest, response: HttpResponse, schema: S): ParsedResult<z.output<S>> {
    const { status, body } = response;
    if (status < 200 || status > 299) {
      return {
        ok: false,
        status,
        error: `${this.#describe(request)}: HTTP ${status}${this.snippet(body)}`,
        retryable: status === 429 || status >= 502,
        permanent: isPermanentStatus(status),
        body,
      };
    }
    const parsed = schema.safeParse(body);
    if (parsed.success) return { ok: true, status, data: parsed.data };
    const issue = parsed.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? '' : ` at ${issue.path.join('.')}`;
    return {
      ok: false,
      status,
      error: `${this.#describe(request)}: unexpected answer${where}: ${this.redact(issue?.message ?? 'invalid')}`,
      retryable: false,
      permanent: false,
      body,
    };
  }

  /** A short, redacted excerpt of a body for an error message (": …" or ''). */
  snippet(body: unknown): string {
    if (body === null || body === undefined || body === '') return '';
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    const short = text.length > 300 ? `${text.slice(0, 297)}...` : text;
    return `: ${this.redact(short.replace(/\s+/g, ' '))}`;
  }

  /** Closes idle keep-alive connections. */
  close(): void {
    this.#agent.destroy();
  }

  async #authorized(
    request: HttpRequest,
    idempotent: boolean,
  ): Promise<{ response: HttpResponse; credential: string }> {
    let credential = '';
    const budget = currentCallBudget();
    const spentError = (sent: boolean) =>
      new HttpError(budget?.spentMessage(this.#describe(request)) ?? 'call budget spent', 'timeout', sent);
    const response = await withRetry(
      async (): Promise<AttemptResult<HttpResponse>> => {
        // A spent budget sends nothing more: the device had its time.
        if (budget?.spent === true) return { kind: 'failure', error: spentError(false), sent: false, retryable: false };
        let authHeaders: Readonly<Record<string, string>> = {};
        if (this.#auth !== null) {
          try {
            const authorization = await this.#auth.authorize();
            authHeaders = authorization.headers;
            credential = authorization.credential;
          } catch (error) {
            const message = `${this.#describe(request)}: the login failed: ${this.redact(errorText(error))}`;
            const failure = new HttpError(message, 'auth', false, { permanent: isPermanentFailure(error) });
            return { kind: 'failure', error: failure, sent: false, retryable: false };
          }
        }
        try {
          const value = await this.#once(request, authHeaders);
          return { kind: 'answer', value, status: value.status, retryAfter: value.headers['retry-after'] };
        } catch (error) {
          const failure =
            error instanceof HttpError ? error : new HttpError(this.redact(errorText(error)), 'network', true);
          const retryable = failure.kind === 'network' || failure.kind === 'timeout';
          return { kind: 'failure', error: failure, sent: failure.sent, retryable };
        }
      },
      idempotent,
      this.#policy,
      ({ retry, delayMs, reason }) =>
        this.#logger.warn(
          { vendor: this.name, call: this.#describe(request), retry, delayMs, reason: this.redact(reason) },
          'vendor API call will be retried',
        ),
      {
        ...(budget === undefined ? {} : { budget }),
        // Out of budget after a try that timed out: say so, rather than name only the last try's limit.
        spent: (_budget, last) => (last instanceof HttpError && last.kind === 'timeout' ? spentError(last.sent) : last),
      },
    );
    return { response, credential };
  }

  /** One try: no retries, no renewal. */
  #once(request: HttpRequest, authHeaders: Readonly<Record<string, string>>): Promise<HttpResponse> {
    const url = this.#url(request);
    const form = request.form === undefined ? null : new URLSearchParams(request.form).toString();
    const payload =
      form !== null ? Buffer.from(form) : request.body === undefined ? null : Buffer.from(JSON.stringify(request.body));
    const contentType = form !== null ? 'application/x-www-form-urlencoded' : 'application/json';
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...request.headers,
      ...authHeaders,
      ...(payload === null ? {} : { 'content-type': contentType, 'content-length': String(payload.length) }),
    };
    const describe = this.#describe(request);
    const timeoutMs = request.timeoutMs ?? this.#timeoutMs;
    const budget = currentCallBudget();
    const started = Date.now();
    return new Promise<HttpResponse>((resolve, reject) => {
      let sent = false;
      let settled = false;
      const fail = (message: string, kind: HttpFailureKind) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        stopWatchingBudget();
        req.destroy();
        reject(new HttpError(`${describe}: ${this.redact(message)}`, kind, sent));
      };
      const req = this.#transport.request(url, { method: request.method, headers, agent: this.#agent });
      // The try's own limit, or the call budget, whichever ends first (the budget may grow meanwhile:
      // another answer in the same call starts it again).
      const timer = setTimeout(() => fail(`no answer within ${timeoutMs} ms`, 'timeout'), timeoutMs);
      const stopWatchingBudget =
        budget?.onSpent(() => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          req.destroy();
          reject(new HttpError(budget.spentMessage(describe), 'timeout', sent));
        }) ?? (() => undefined);
      req.on('socket', (socket) => {
        // Until the connection is open nothing reached the device, so any call may be tried again.
        if (!socket.connecting) sent = true;
        else socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => (sent = true));
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        const code = error.code ?? '';
        if (TLS_ERROR_CODES.has(code) || /certificate|self.signed/i.test(error.message)) {
          fail(`TLS: ${error.message} (set Insecure on the backend only for a device you trust)`, 'tls');
        } else {
          fail(`${error.message}${code !== '' && !error.message.includes(code) ? ` (${code})` : ''}`, 'network');
        }
      });
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        budget?.answered();
        if (status >= 300 && status <= 399) {
          res.resume();
          fail(redirectMessage(status, res.headers.location, url), 'redirect');
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > this.#maxBodyBytes) fail(`the answer is larger than ${this.#maxBodyBytes} bytes`, 'too-large');
          else chunks.push(chunk);
        });
        res.on('error', (error) => fail(error.message, 'network'));
        res.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          stopWatchingBudget();
          const body = parseBody(Buffer.concat(chunks).toString('utf8'));
          this.#logger.debug(
            { vendor: this.name, call: describe, status, ms: Date.now() - started },
            'vendor API answered',
          );
          resolve({ status, headers: res.headers, body });
        });
      });
      req.end(payload ?? undefined);
    });
  }

  #url(request: HttpRequest): URL {
    if (!request.path.startsWith('/') || request.path.startsWith('//')) {
      throw new HttpError(`${this.name}: a call path must start with one '/'`, 'url', false);
    }
    const url = new URL(this.#base.href);
    url.pathname = `${this.#base.pathname.replace(/\/+$/, '')}${request.path}`;
    for (const [key, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, value);
    }
    return url;
  }

  /** "fortios GET /api/v2/…": what a message names the call by (redacted, no query string). */
  #describe(request: HttpRequest): string {
    return this.redact(`${this.name} ${request.method} ${request.path}`);
  }
}

/** A refused redirect, naming where it led (another host, or a path on the same host). */
function redirectMessage(status: number, location: string | undefined, from: URL): string {
  if (location === undefined) return `refused a redirect (HTTP ${status}): vendor API calls never follow redirects`;
  let target: URL;
  try {
    target = new URL(location, from);
  } catch {
    return `refused a redirect (HTTP ${status}): vendor API calls never follow redirects`;
  }
  if (target.host !== from.host || target.protocol !== from.protocol) {
    return `refused a redirect (HTTP ${status}) to another host, ${target.protocol}//${target.host}: vendor API calls never follow redirects, so credentials never reach a host the backend does not name`;
  }
  return `refused a redirect (HTTP ${status}) to ${target.pathname} on the same host: vendor API calls never follow redirects; check the backend's URL`;
}

function parseBody(text: string): unknown {
  if (text === '') return null;
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[') || trimmed.startsWith('"')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
