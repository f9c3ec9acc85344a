import type { EntryOutcome } from './driver.js';
import { isPermanentStatus } from './http/http-status-error.js';

/** An entry that worked. */
export function succeeded(ip: string): EntryOutcome {
  return { ip, ok: true, error: '' };
}

/**
 * An entry that failed, with what the device (or the driver) said. `permanent`: retrying cannot help
 * (see {@link isPermanentFailure}); without it the runtime retries the apply with back-off.
 */
export function failed(ip: string, error: string, options: { permanent?: boolean } = {}): EntryOutcome {
  return options.permanent === true ? { ip, ok: false, error, permanent: true } : { ip, ok: false, error };
}

/** A thrown value as one line for an entry's error. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A failure that retrying cannot fix. Thrown by a driver (from anywhere in a call), it fails the
 * entries as permanent: the runtime reports the error and does not try again until the server sends
 * the entry anew (an admin changed the knoc, the user asked again).
 */
export class PermanentDriverError extends Error {
  readonly permanent = true as const;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PermanentDriverError';
  }
}

/**
 * This knoc's configuration cannot work (a field missing or unusable): permanent, because only an
 * administrator's change (which arrives as a new configuration) can fix it. The message names the field.
 */
export class ConfigurationError extends PermanentDriverError {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigurationError';
  }
}

/**
 * Whether a caught value says that retrying cannot help: a {@link PermanentDriverError} (or
 * ConfigurationError), anything carrying `permanent: true` (an `HttpStatusError` for 401/403/400/404/
 * 422), or anything carrying such an HTTP `status` without saying `permanent`; the same for its
 * `cause`, so a driver may wrap one. Everything else (timeouts, transport failures, 5xx, 429, the
 * call budget spent, plain Errors) is transient: retried.
 */
export function isPermanentFailure(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    if (current instanceof PermanentDriverError) return true;
    const { permanent, status, cause } = current as { permanent?: unknown; status?: unknown; cause?: unknown };
    if (permanent === true) return true;
    if (permanent === false) return false;
    if (typeof status === 'number' && isPermanentStatus(status)) return true;
    current = cause;
  }
  return false;
}

/** A caught error as a failed outcome for `ip`, permanent when {@link isPermanentFailure} says so. */
export function failureFrom(ip: string, error: unknown): EntryOutcome {
  return failed(ip, errorMessage(error), { permanent: isPermanentFailure(error) });
}

/**
 * A device's refusal (an `HttpClient.parse` result with `ok: false`, or any `{status, error}`) as a
 * failed outcome for `ip`, permanent for 401/403/400/404/422.
 */
export function failureFromAnswer(ip: string, answer: { status: number; error: string }): EntryOutcome {
  return failed(ip, answer.error, { permanent: isPermanentStatus(answer.status) });
}
