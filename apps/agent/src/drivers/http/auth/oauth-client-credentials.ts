import type { Authenticator, Authorization } from './authenticator.js';
import { SessionLogin, type LoginResult } from './session-login.js';

export interface OAuthClientCredentialsOptions {
  /** Asks the authority's token endpoint for a token (its own HTTP call, without this authenticator). */
  fetchToken: () => Promise<LoginResult>;
  /** The client secret and anything else the token request sends that must never be printed. */
  secrets: readonly string[];
  /**
   * A fresh token for every call (the backend's NoCache): nothing is kept between calls, for
   * tenants whose conditional-access rules make cached tokens unwelcome.
   */
  noCache: boolean;
  /** A cached token this close to its expiry is replaced before use (default 5 minutes). */
  refreshMarginMs?: number;
  now?: () => number;
}

/** Azure AD tokens last about an hour; replace one 5 minutes ahead so a long LRO poll never carries a stale one. */
const DEFAULT_REFRESH_MARGIN_MS = 5 * 60_000;
const REMEMBERED_TOKENS = 8;

/**
 * OAuth 2.0 client credentials (VENDORS.md 1.8): a bearer token from the authority's token endpoint,
 * cached until shortly before `expires_in` runs out (one request at a time, see {@link SessionLogin}),
 * or fetched anew for every call when `noCache` is set. After a 401 (an expired or revoked token)
 * the cache is dropped and exactly one new token is fetched for one more try.
 */
export class OAuthClientCredentials implements Authenticator {
  readonly #cached: SessionLogin | null;
  readonly #options: OAuthClientCredentialsOptions;
  /** Tokens handed out without caching, kept only to redact them from later errors. */
  readonly #recent: string[] = [];
  /** Tokens fetched, for tests and diagnostics. */
  #uncachedFetches = 0;

  constructor(options: OAuthClientCredentialsOptions) {
    this.#options = options;
    this.#cached = options.noCache
      ? null
      : new SessionLogin({
          login: options.fetchToken,
          headers: bearer,
          secrets: options.secrets,
          refreshMarginMs: options.refreshMarginMs ?? DEFAULT_REFRESH_MARGIN_MS,
          ...(options.now === undefined ? {} : { now: options.now }),
        });
  }

  /** Tokens fetched so far. */
  get fetches(): number {
    return this.#cached?.logins ?? this.#uncachedFetches;
  }

  async authorize(): Promise<Authorization> {
    if (this.#cached !== null) return this.#cached.authorize();
    this.#uncachedFetches++;
    const { token } = await this.#options.fetchToken();
    this.#recent.unshift(token);
    this.#recent.length = Math.min(this.#recent.length, REMEMBERED_TOKENS);
    return { headers: bearer(token), credential: token };
  }

  async renew(credential: string): Promise<boolean> {
    // Without a cache the next authorize() fetches a new token anyway.
    return this.#cached === null ? true : this.#cached.renew(credential);
  }

  *secrets(): Iterable<string> {
    if (this.#cached !== null) yield* this.#cached.secrets();
    else yield* this.#options.secrets;
    yield* this.#recent;
  }
}

function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}
