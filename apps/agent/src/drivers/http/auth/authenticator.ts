/** The credential headers for one request, and which credential they carry (for {@link Authenticator.renew}). */
export interface Authorization {
  headers: Readonly<Record<string, string>>;
  /** An opaque tag of the credential used; renew() compares it to tell a stale 401 from a fresh one. */
  credential: string;
}

/**
 * How a vendor client authenticates. The HTTP client asks for headers before each request, and
 * after a 401 asks once for a new credential: a static token cannot renew (the 401 is final), a
 * login session logs in again, once, however many calls saw the 401 at the same time.
 */
export interface Authenticator {
  authorize(): Promise<Authorization>;
  /** After a 401 sent with `credential`: true when a new credential is ready to try once. */
  renew(credential: string): Promise<boolean>;
  /** Every string that must never appear in an error or a log line (tokens, passwords). */
  secrets(): Iterable<string>;
}
