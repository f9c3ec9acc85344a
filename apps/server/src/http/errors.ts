import { ErrorCodes, type ErrorCode } from '@postern/protocol';

/**
 * The few error kinds the API answers with. Services throw these; the one error handler turns them
 * into `{ Err, Extra }` with the status. Anything else becomes a 500 that shows no internals.
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

/** 400: the request is malformed or a value breaks a rule; `extra` names the field. */
export class BadRequestError extends ApiError {
  constructor(extra?: string, code: ErrorCode = ErrorCodes.badRequest) {
    super(400, code, extra);
  }
}

/** 401: no valid session, or credentials that do not match. */
export class UnauthenticatedError extends ApiError {
  constructor(code: ErrorCode = ErrorCodes.invalidSession, extra?: string) {
    super(401, code, extra);
  }
}

/** 403: the caller is known but may not do this. */
export class ForbiddenError extends ApiError {
  constructor(code: ErrorCode = ErrorCodes.unauthorised, extra?: string) {
    super(403, code, extra);
  }
}

export class NotFoundError extends ApiError {
  constructor(extra?: string) {
    super(404, ErrorCodes.notFound, extra);
  }
}

/** 409: a name or other unique value is taken. */
export class ConflictError extends ApiError {
  constructor(code: ErrorCode = ErrorCodes.conflict, extra?: string) {
    super(409, code, extra);
  }
}

/** 429 with Retry-After (whole seconds). */
export class TooManyRequestsError extends ApiError {
  constructor(retryAfterSeconds: number) {
    const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
    super(429, ErrorCodes.tooManyRequests, `${seconds}s`, { 'retry-after': String(seconds) });
  }
}

/** 503: the store cannot be reached; the request may be retried. */
export class StoreUnavailableError extends ApiError {
  constructor() {
    super(503, ErrorCodes.storeUnavailable);
  }
}
