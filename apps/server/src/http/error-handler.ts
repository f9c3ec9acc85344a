import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ALL_ERROR_CODES, ErrorCodes, type ApiErrorBody, type ErrorCode } from '@postern/protocol';
import { isStoreOutOfResources, isStoreUnavailable } from '../store/store-unavailable.js';
import { ApiError } from '../errors.js';
import { SecretUnreadableError } from '../secrets/secret-box.js';

/** Fastify's own client-error codes, mapped to ours. */
const FASTIFY_CLIENT_ERRORS: Record<string, { status: number; code: ErrorCode; extra?: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: ErrorCodes.badRequest, extra: 'Malformed JSON body' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: ErrorCodes.badRequest, extra: 'Empty JSON body' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: ErrorCodes.badRequest, extra: 'Content-Length' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: ErrorCodes.payloadTooLarge },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: ErrorCodes.unsupportedMediaType },
};

/** What a 503 for an unavailable store tells the client to wait before trying again. */
const STORE_RETRY_AFTER_SECONDS = '5';

/** The single place where any thrown error becomes an HTTP answer. */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (clientHungUp(request)) {
      // Nobody is left to answer, and nothing is wrong with the server: a client that went away.
      request.log.debug({ code: error.code }, 'client closed the request before it was answered');
      return reply.code(CLIENT_CLOSED_REQUEST).send();
    }
    const { status, body, headers } = toResponse(error);
    if (status === 503 && isStoreOutOfResources(error)) {
      // The store's write health warned once for the whole outage (store/write-health.ts); a warning
      // per request would only add to a full disk.
      request.log.info({ code: storeErrorCode(error) }, 'request refused: the store has no room for writes');
    } else if (status === 503) {
      // The store is locked by another process or out of reach: an operating condition the client
      // is told to retry, not a fault in the server.
      request.log.warn({ err: error }, 'request refused: the store is unavailable');
    } else if (status >= 500) {
      request.log.error({ err: error }, 'request failed');
    } else {
      request.log.info({ status, err: body.Err, extra: body.Extra }, 'request refused');
    }
    return reply.code(status).headers(headers).send(body);
  });
}

/**
 * Errors the router raises before any route runs (a malformed percent-escape, a path parameter over
 * the router's length limit): answered in the same envelope as everything else, without echoing the
 * path. Passed to Fastify as its `frameworkErrors` option.
 */
export function answerRouterError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
  const status = tooLong ? 414 : 400;
  const extra = tooLong ? 'path: a path parameter is too long' : 'path: malformed percent-encoding';
  request.log.info({ status, code: error.code }, 'request refused by the router');
  void reply.code(status).send(errorBody(ErrorCodes.badRequest, extra));
}

/** nginx's code for a request whose client closed the connection; it only ever reaches the log. */
const CLIENT_CLOSED_REQUEST = 499;

/** Whether the client went away (its request stream ended early, or the socket closed). */
function clientHungUp(request: FastifyRequest): boolean {
  // Not `destroyed` alone: a fully read request may be destroyed after its end without any hang-up.
  return request.raw.readableAborted || request.raw.socket?.destroyed === true;
}

function toResponse(error: FastifyError): { status: number; body: ApiErrorBody; headers: Record<string, string> } {
  if (error instanceof ApiError) {
    return { status: error.statusCode, body: errorBody(error.code, error.extra), headers: error.headers };
  }
  if (error instanceof SecretUnreadableError) {
    // 409, not 500: nothing unexpected failed and retrying cannot help; the stored secret is in a
    // state that cannot serve the request until an admin re-enters it or resets the second factor.
    // Not 503 either: that would invite clients and load balancers to retry on another replica,
    // which holds the same row. Which secret it is goes to the log and audit (app.ts), not the caller.
    return { status: 409, body: errorBody(ErrorCodes.secretUnreadable), headers: {} };
  }
  if (Array.isArray(error.validation) && error.validation.length > 0) {
    return { status: 400, body: validationBody(error), headers: {} };
  }
  const known = FASTIFY_CLIENT_ERRORS[error.code];
  if (known !== undefined) return { status: known.status, body: errorBody(known.code, known.extra), headers: {} };
  if (isStoreUnavailable(error)) {
    // Locked by another process, unreachable or overloaded: the same request is worth repeating.
    return {
      status: 503,
      body: errorBody(ErrorCodes.storeUnavailable),
      headers: { 'retry-after': STORE_RETRY_AFTER_SECONDS },
    };
  }
  if (isTextTheStoreCannotHold(error)) {
    // The NUL rule (nul-character-rule.ts) keeps such text out of requests; this is the backstop.
    return {
      status: 400,
      body: errorBody(ErrorCodes.badRequest, 'a text holds a character the store cannot keep'),
      headers: {},
    };
  }
  const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
  if (status >= 400 && status < 500) {
    // Any other client error Fastify raises (a poisoned JSON prototype, a bad header): generic 400s.
    const code = status === 404 ? ErrorCodes.notFound : ErrorCodes.badRequest;
    return { status: status === 404 ? 404 : 400, body: errorBody(code), headers: {} };
  }
  return { status: 500, body: errorBody(ErrorCodes.internalServerError), headers: {} };
}

export function errorBody(code: ErrorCode, extra?: string): ApiErrorBody {
  return extra === undefined ? { Err: code } : { Err: code, Extra: extra };
}

/**
 * A failed validation names the field. Rules from the specification carry their own code as the
 * message (`err.urlMustBeHttp`): then that code is the error and the field is the detail, e.g.
 * `{Err: "err.urlMustBeHttp", Extra: "DiscoverIPURL"}`. Anything else is
 * `{Err: "err.badRequest", Extra: "UserName: Invalid input: expected string, received undefined"}`.
 */
function validationBody(error: FastifyError): ApiErrorBody {
  const first = error.validation?.[0];
  if (first === undefined) return errorBody(ErrorCodes.badRequest, error.message);
  const field = first.instancePath.replace(/^\//, '').replaceAll('/', '.');
  const where = field === '' ? (error.validationContext ?? 'body') : field;
  const message = first.message ?? 'invalid';
  if (isErrorCode(message)) return errorBody(message, where);
  return errorBody(ErrorCodes.badRequest, `${where}: ${message}`);
}

function isErrorCode(value: string): value is ErrorCode {
  return (ALL_ERROR_CODES as readonly string[]).includes(value);
}

/** The driver's code of a store error (SQLITE_FULL, 53100), for the log. */
function storeErrorCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

/** PostgreSQL refusing a text it cannot encode: character_not_in_repertoire, untranslatable_character. */
function isTextTheStoreCannotHold(error: unknown): boolean {
  return error instanceof Error && 'code' in error && (error.code === '22021' || error.code === '22P05');
}
