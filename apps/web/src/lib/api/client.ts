import { ErrorCodes } from '@postern/protocol';
import type { z } from 'zod';
import { ApiError } from './api-error';
import { notifyInvalidSession } from './invalid-session';

/** Every API path is relative to this, on the page's own origin (the server checks Origin). */
const API_BASE = '/api';

/** Per-call options. */
export interface RequestOptions {
  signal?: AbortSignal;
  /**
   * Set by the route guards' own session probe: a 401 there just means "not signed in", which the
   * guard handles itself, rather than "your session ended", which the global redirect reports.
   */
  ignoreInvalidSession?: boolean;
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Retry-After in its delta-seconds form; the HTTP-date form is not worth parsing for a message. */
function retryAfterSeconds(response: Response): number | undefined {
  const value = response.headers.get('retry-after')?.trim();
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}

function errorFields(body: unknown): { err?: string; extra?: string } {
  if (typeof body !== 'object' || body === null) return {};
  const { Err, Extra } = body as { Err?: unknown; Extra?: unknown };
  return {
    err: typeof Err === 'string' ? Err : undefined,
    extra: typeof Extra === 'string' ? Extra : undefined,
  };
}

async function request<S extends z.ZodType>(
  method: Method,
  path: string,
  schema: S | undefined,
  body: unknown,
  options: RequestOptions = {},
): Promise<z.infer<S>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  // Only a request with a body may say it is JSON: the server refuses an empty JSON body.
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${API_BASE}${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: options.signal,
  });
  const json = await readJson(response);
  if (!response.ok) {
    const { err, extra } = errorFields(json);
    if (response.status === 401 && err === ErrorCodes.invalidSession && options.ignoreInvalidSession !== true) {
      notifyInvalidSession();
    }
    throw new ApiError(response.status, err, extra, retryAfterSeconds(response));
  }
  const data = (json as { data?: unknown } | undefined)?.data;
  if (schema === undefined) return data as z.infer<S>;
  const parsed = schema.safeParse(data);
  // A body that breaks the shared contract is a server fault; show the generic internal error.
  if (!parsed.success) throw new ApiError(response.status, undefined);
  return parsed.data;
}

/**
 * The one typed API client. Each call resolves to the `data` of the `{ data }` envelope, checked
 * against the shared schema when one is given, and rejects with an {@link ApiError}.
 */
export const api = {
  get: <S extends z.ZodType>(path: string, schema?: S, options?: RequestOptions) =>
    request('GET', path, schema, undefined, options),
  post: <S extends z.ZodType>(path: string, body?: unknown, schema?: S, options?: RequestOptions) =>
    request('POST', path, schema, body, options),
  put: <S extends z.ZodType>(path: string, body?: unknown, schema?: S, options?: RequestOptions) =>
    request('PUT', path, schema, body, options),
  delete: <S extends z.ZodType>(path: string, schema?: S, options?: RequestOptions) =>
    request('DELETE', path, schema, undefined, options),
};
