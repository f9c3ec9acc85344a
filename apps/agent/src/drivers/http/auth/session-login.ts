import type { Authenticator, Authorization } from './authenticator.js';

/** What a login gave: the session token and, when the vendor says, how long it lasts. */
export interface LoginResult {
  token: string;
  /** Milliseconds the token is valid from now; null when the vendor does not say. */
  expiresInMs: number | null;
}

export interface SessionLoginOptions {
  /** Logs in with the backend's username and password (its own HTTP call, without this authenticator). */
  login: () => Promise<LoginResult>;
  /** The headers that carry a token (`X-auth-access-token` for Cisco FMC). */
  headers: (token: string) => Record<string, string>;
  /** The password and anything else the login sends that must never be printed. */
  secrets: readonly string[];
  /** A token this close to its expiry is replaced before use rather than risking a 401. */
  refreshMarginMs?: number;
  now?: () => number;
}

const DEFAULT_REFRESH_MARGIN_MS = 30_000;
/** Earlier tokens stay redacted for a while: an error about a call made with one may still be printed. */
const REMEMBERED_TOKENS = 8;

/**
 * A username/password login that yields a token with an expiry (Cisco FMC). One login runs at a time:
 * callers that need a token while a login is under way wait for that login instead of starting their
 * own (single flight). After a 401, {@link renew} logs in again only if the failed call used the
 * current token; a call that still carried an older one just tries the newer token.
 */
export class SessionLogin implements Authenticator {
  readonly #options: SessionLoginOptions;
  readonly #now: () => number;
  readonly #margin: number;
  #token: string | null = null;
  /** When the token is replaced before use: its expiry less the margin (at most half its life). */
  #refreshAt = Number.POSITIVE_INFINITY;
  #inFlight: Promise<string> | null = null;
  readonly #previous: string[] = [];
  /** Logins made, for tests and diagnostics. */
  logins = 0;

  constructor(options: SessionLoginOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#margin = options.refreshMarginMs ?? DEFAULT_REFRESH_MARGIN_MS;
  }

  async authorize(): Promise<Authorization> {
    const fresh = this.#token !== null && this.#now() < this.#refreshAt;
    const token = fresh && this.#token !== null ? this.#token : await this.#login();
    return { headers: this.#options.headers(token), credential: token };
  }

  async renew(credential: string): Promise<boolean> {
    if (this.#inFlight !== null) {
      await this.#inFlight;
      return true;
    }
    // Someone already replaced the token the failed call used: try the current one.
    if (this.#token !== null && this.#token !== credential) return true;
    this.#forget();
    await this.#login();
    return true;
  }

  *secrets(): Iterable<string> {
    yield* this.#options.secrets;
    if (this.#token !== null) yield this.#token;
    yield* this.#previous;
  }

  #forget(): void {
    if (this.#token !== null) {
      this.#previous.unshift(this.#token);
      this.#previous.length = Math.min(this.#previous.length, REMEMBERED_TOKENS);
    }
    this.#token = null;
  }

  #login(): Promise<string> {
    if (this.#inFlight !== null) return this.#inFlight;
    this.#forget();
    const flight = (async () => {
      this.logins++;
      const result = await this.#options.login();
      this.#token = result.token;
      const life = result.expiresInMs === null ? null : Math.max(0, result.expiresInMs);
      this.#refreshAt =
        life === null ? Number.POSITIVE_INFINITY : this.#now() + life - Math.min(this.#margin, life / 2);
      return result.token;
    })();
    this.#inFlight = flight;
    const clear = () => {
      if (this.#inFlight === flight) this.#inFlight = null;
    };
    flight.then(clear, clear);
    return flight;
  }
}
