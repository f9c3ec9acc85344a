/**
 * HTTP statuses that the same request will meet again however often it is sent: the credential is
 * refused (401 after the client's own re-login, 403), or the device rejects the request as invalid
 * (400, 404, 422). Everything else (5xx, 429, 408, no answer at all) may pass and is worth retrying.
 */
export const PERMANENT_STATUSES: ReadonlySet<number> = new Set([400, 401, 403, 404, 422]);

/** Whether a device's answer with this status is final for the request (see {@link PERMANENT_STATUSES}). */
export function isPermanentStatus(status: number): boolean {
  return PERMANENT_STATUSES.has(status);
}

/**
 * A device answered a call with a status that is not success: thrown by a vendor client instead of a
 * plain Error so that the status (and with it whether retrying can help) reaches the runtime. The
 * message is the one for the grant's Error and must already be redacted (`HttpClient.redact`).
 */
export class HttpStatusError extends Error {
  /** True for a status that retrying does not change (401/403, 400/404/422). */
  readonly permanent: boolean;

  constructor(
    message: string,
    /** The device's HTTP status. */
    readonly status: number,
  ) {
    super(message);
    this.name = 'HttpStatusError';
    this.permanent = isPermanentStatus(status);
  }
}
