import { ErrorCodes, type ErrorCode } from '@postern/protocol';

/**
 * The few error kinds the API answers with. Services throw these; the one error handler turns them
 * into `{ Err, Extra }` with the status. Anything else becomes a 500 that shows no internals.
 *
 * Every kind takes one optional options object, `{ code?, extra? }` (plus what the kind needs, such as
 * `retryAfterSeconds`), so a caller never passes `undefined` to reach the second argument. `code`
 * defaults to the kind's generic code; `extra` goes to the body's `Extra` (a field name or a reason).
 * Build the base class directly only here.
 */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: ErrorCode,
    readonly extra?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(extra === undefined ? code : `${code}: ${extra}`);
    this.name = new.target.name;
  }
}

/** What every error kind accepts: the error code (defaulting per kind) and the `Extra` text. */
export interface ApiErrorOptions {
  code?: ErrorCode | undefined;
  extra?: string | undefined;
}

/** Whole seconds for a Retry-After header: at least one, rounded up. */
function wholeSeconds(seconds: number): number {
  return Math.max(1, Math.ceil(seconds));
}

/** 400: the request is malformed or a value breaks a rule; `extra` names the field. */
export class BadRequestError extends ApiError {
  constructor({ code = ErrorCodes.badRequest, extra }: ApiErrorOptions = {}) {
    super(400, code, extra);
  }
}

/**
 * 401: no valid session, or credentials that do not match. `wwwAuthenticate` sets the
 * WWW-Authenticate challenge (the v1 API's Basic realm).
 */
export class UnauthenticatedError extends ApiError {
  constructor({
    code = ErrorCodes.invalidSession,
    extra,
    wwwAuthenticate,
  }: ApiErrorOptions & { wwwAuthenticate?: string | undefined } = {}) {
    super(401, code, extra, wwwAuthenticate === undefined ? {} : { 'www-authenticate': wwwAuthenticate });
  }
}

/** 403: the caller is known but may not do this. */
export class ForbiddenError extends ApiError {
  constructor({ code = ErrorCodes.unauthorised, extra }: ApiErrorOptions = {}) {
    super(403, code, extra);
  }
}

/** 404: no such thing, or nothing the caller may see; `extra` says what was looked for. */
export class NotFoundError extends ApiError {
  constructor({ code = ErrorCodes.notFound, extra }: ApiErrorOptions = {}) {
    super(404, code, extra);
  }
}

/** 409: a name or other unique value is taken, or the state does not allow the change. */
export class ConflictError extends ApiError {
  constructor({ code = ErrorCodes.conflict, extra }: ApiErrorOptions = {}) {
    super(409, code, extra);
  }
}

/** 429 with Retry-After (whole seconds, at least one; also in `Extra` as `<n>s`). */
export class TooManyRequestsError extends ApiError {
  constructor({ retryAfterSeconds }: { retryAfterSeconds: number }) {
    const seconds = wholeSeconds(retryAfterSeconds);
    super(429, ErrorCodes.tooManyRequests, `${seconds}s`, { 'retry-after': String(seconds) });
  }
}

/**
 * 503: something the request needs (the store, the LDAP directory) cannot be reached; the request
 * may be retried. Retry-After (whole seconds, at least one) only when `retryAfterSeconds` is given.
 */
export class ServiceUnavailableError extends ApiError {
  constructor({
    code = ErrorCodes.storeUnavailable,
    extra,
    retryAfterSeconds,
  }: ApiErrorOptions & { retryAfterSeconds?: number | undefined } = {}) {
    super(
      503,
      code,
      extra,
      retryAfterSeconds === undefined ? {} : { 'retry-after': String(wholeSeconds(retryAfterSeconds)) },
    );
  }
}
