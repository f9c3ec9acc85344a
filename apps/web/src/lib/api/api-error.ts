/**
 * A failed API call. `err` and `extra` are the server's `{ Err, Extra }`; both are absent when the
 * answer was not one of ours (a proxy's HTML error page, an unexpected body).
 */
export class ApiError extends Error {
  /** HTTP status, or 0 when the request never got an answer. */
  readonly status: number;
  /** The server's error code (`err.…`), when it sent one. */
  readonly err: string | undefined;
  /** The detail the server added: a field name, a duration, or another `err.` key. */
  readonly extra: string | undefined;
  /** Seconds to wait before asking again, from a Retry-After header given in seconds. */
  readonly retryAfterSeconds: number | undefined;

  constructor(status: number, err: string | undefined, extra?: string, retryAfterSeconds?: number) {
    // The message stays empty without a code: the renderer then shows its generic internal-error text
    // instead of something like "HTTP 502" that means nothing to a person.
    super(err === undefined ? '' : extra === undefined ? err : `${err}: ${extra}`);
    this.name = 'ApiError';
    this.status = status;
    this.err = err;
    this.extra = extra;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Whether `error` is an API answer carrying this error code. */
export function hasErrorCode(error: unknown, code: string): error is ApiError {
  return error instanceof ApiError && error.err === code;
}
