import { ErrorCodes, V1_LOGIN_PATH } from '@postern/protocol';
import { ApiError, TransportError } from './api-client.js';
import { ClientError } from './errors.js';
import { ExitCode } from './exit-codes.js';

/** What each server error code means for a machine client: its exit code and a sentence. */
const BY_CODE: Record<string, { exitCode: ExitCode; message: string }> = {
  [ErrorCodes.unauthorised]: {
    exitCode: ExitCode.KeyRefused,
    message: 'the server refused the API key (unknown, revoked, or not scoped user.auth)',
  },
  [ErrorCodes.apiKeySignInNotAllowed]: {
    exitCode: ExitCode.KeyRefused,
    message: "the API key's user is not an API-key user (people sign in with their password)",
  },
  [ErrorCodes.apiKeyExpired]: { exitCode: ExitCode.KeyExpired, message: 'the API key has expired' },
  [ErrorCodes.apiKeyAddressNotAllowed]: {
    exitCode: ExitCode.AddressNotAllowed,
    message: "the API key may not be used from this machine's address (the key's AllowedFrom)",
  },
  [ErrorCodes.accountDisabled]: {
    exitCode: ExitCode.AccountDisabled,
    message: "the API key's user is disabled or has expired",
  },
  [ErrorCodes.licenceRequired]: {
    exitCode: ExitCode.Licence,
    message: 'Postern is not licensed for this user (the installation has no valid licence, or is over its user limit)',
  },
  [ErrorCodes.invalidSession]: {
    exitCode: ExitCode.NoSession,
    message: 'the session has ended (logged out, expired, or ended by an administrator)',
  },
  [ErrorCodes.sessionExpired]: { exitCode: ExitCode.NoSession, message: 'the session has expired' },
  [ErrorCodes.storeUnavailable]: {
    exitCode: ExitCode.Unreachable,
    message: "the server's store is unavailable; try again later",
  },
};

/**
 * The ClientError a failure amounts to: its exit code and one line for stderr. Errors postern-client
 * does not expect (a bug, an answer from a newer server it cannot place) become exit 70.
 */
export function toClientError(error: unknown): ClientError {
  if (error instanceof ClientError) return error;
  if (error instanceof TransportError) {
    return new ClientError(error.message, error.problem === 'redirect' ? ExitCode.Usage : ExitCode.Unreachable);
  }
  if (error instanceof ApiError) return fromApiError(error);
  const message = error instanceof Error ? error.message : String(error);
  return new ClientError(`internal error: ${message}`, ExitCode.Internal);
}

function fromApiError(error: ApiError): ClientError {
  const code = error.code ?? undefined;
  const extra = error.extra === undefined || error.extra === '' ? '' : ` (${error.extra})`;
  if (error.status === 429 || code === ErrorCodes.tooManyRequests) {
    const wait =
      error.retryAfterSeconds === null ? '' : `; the server asks to wait ${error.retryAfterSeconds} s (Retry-After)`;
    return new ClientError(`too many sign-ins${wait}`, ExitCode.Throttled, code);
  }
  const known = code === undefined ? undefined : BY_CODE[code];
  if (known !== undefined) return new ClientError(`${known.message}${extra}`, known.exitCode, code);
  if (error.status >= 500) {
    return new ClientError(
      `the server failed: ${error.operation} answered ${error.status}${code === undefined ? '' : ` ${code}`}`,
      ExitCode.Unreachable,
      code,
    );
  }
  if (error.status === 404 && error.operation === `POST ${V1_LOGIN_PATH}`) {
    return new ClientError(
      `the server has no machine sign-in at ${V1_LOGIN_PATH}: check the server URL (Postern 1.9 or newer is needed)`,
      ExitCode.Usage,
      code,
    );
  }
  return new ClientError(`unexpected answer: ${error.message}`, ExitCode.Internal, code);
}

/** Whether the failure is the session having ended (the persist loop signs in again). */
export function isSessionEnded(error: unknown): boolean {
  return (
    error instanceof ApiError &&
    error.status === 401 &&
    (error.code === ErrorCodes.invalidSession || error.code === ErrorCodes.sessionExpired)
  );
}

/** Whether waiting may cure the failure: no answer, a server error, or throttling. */
export function isTransient(error: unknown): boolean {
  if (error instanceof TransportError) return error.problem !== 'redirect';
  if (error instanceof ApiError) return error.status >= 500 || error.status === 429;
  return false;
}
