import type { Logger } from 'pino';
import type { Clock } from '../lib/clock.js';
import type { Settings } from '../settings/settings.js';
import type { SamlRealm } from '../settings/settings.service.js';
import { fetchMetadataDocument, METADATA_FETCH_DEFAULTS, type MetadataFetchOptions } from './metadata-fetch.js';
import { IdpMetadataError, parseIdpMetadata, type IdpMetadata } from './idp-metadata.js';

const MINUTE_MS = 60_000;

export interface MetadataCachePolicy {
  /** Fetched metadata is used this long before it is fetched again. */
  freshMs: number;
  /** When a re-fetch fails, metadata this recent is still used (an IdP's web server may blip). */
  staleMs: number;
  /** A failed signature check may force a re-fetch (key rollover), but not more often than this. */
  minRefetchMs: number;
  /**
   * After a failed fetch, the URL is not fetched again for this long: loads answer at once with the
   * copy still usable, or with the same error. The sign-in route is anonymous, so without this every
   * request while the IdP is down would be one more outbound fetch, a way for anyone to make the
   * server hammer the IdP (or hang on its timeout). Short, so a recovered IdP is used again soon.
   */
  failureMemoryMs: number;
}

export const METADATA_CACHE_DEFAULTS: MetadataCachePolicy = {
  freshMs: 5 * MINUTE_MS,
  staleMs: 60 * MINUTE_MS,
  minRefetchMs: MINUTE_MS,
  failureMemoryMs: 30_000,
};

interface CacheEntry {
  url: string;
  metadata: IdpMetadata;
  fetchedAt: number;
}

/** A fetch of `url` still running: every load of the same realm and URL awaits this one. */
interface FetchInFlight {
  url: string;
  result: Promise<IdpMetadata>;
}

/** The last fetch of `url` failed at `failedAt`, with `error`. */
interface FetchFailure {
  url: string;
  error: unknown;
  failedAt: number;
}

/**
 * Each realm's IdP metadata: the uploaded file when there is one (the administrator's explicit
 * choice, and no network dependency), else fetched from the URL and cached per realm in this process.
 * Caching is per replica on purpose: metadata is public, and each replica converges within `freshMs`.
 *
 * Outbound fetches are bounded whatever the callers do, since anonymous requests trigger them: one
 * fetch per realm and URL at a time (concurrent loads share it, success or failure), and none for
 * `failureMemoryMs` after one failed. A changed URL is a new key, so an administrator's fix is
 * fetched at once.
 */
export class IdpMetadataSource {
  readonly #cache = new Map<SamlRealm, CacheEntry>();
  readonly #inFlight = new Map<SamlRealm, FetchInFlight>();
  readonly #failures = new Map<SamlRealm, FetchFailure>();
  /** Parsed uploaded files, keyed by their text, so a sign-in does not re-parse the same document. */
  readonly #files = new Map<SamlRealm, { xml: string; metadata: IdpMetadata }>();
  /** Plain-http URLs already warned about, so the log says it once, not at every fetch. */
  readonly #warnedPlainHttp = new Set<string>();

  constructor(
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly policy: MetadataCachePolicy = METADATA_CACHE_DEFAULTS,
    private readonly fetchOptions: MetadataFetchOptions = METADATA_FETCH_DEFAULTS,
  ) {}

  /** Throws IdpMetadataError (or MetadataFetchError) when there is no usable metadata. */
  async load(settings: Settings, realm: SamlRealm): Promise<IdpMetadata> {
    const { file, url } = metadataSettings(settings, realm);
    if (file.trim() !== '') return this.#parseFile(realm, file);
    if (url.trim() === '') throw new IdpMetadataError('no IdP metadata is configured');
    const cached = this.#cache.get(realm);
    const now = this.clock.now();
    if (cached !== undefined && cached.url === url && now - cached.fetchedAt < this.policy.freshMs) {
      return cached.metadata;
    }
    const stale = cached !== undefined && cached.url === url && now - cached.fetchedAt < this.policy.staleMs;
    const failure = this.#recentFailure(realm, url, now);
    if (failure !== null) {
      if (stale) return cached.metadata;
      throw failure.error;
    }
    try {
      return await this.#fetch(realm, url);
    } catch (error) {
      if (stale) {
        this.logger.warn({ err: error, realm }, 'SAML metadata re-fetch failed; using the copy fetched earlier');
        return cached.metadata;
      }
      throw error;
    }
  }

  /**
   * After a response failed signature validation: fetches the URL's metadata again (unless it was
   * fetched moments ago) and returns it when its certificates changed, else null. This is how an IdP
   * key rollover is picked up without waiting for the cache to expire.
   */
  async refetchIfChanged(settings: Settings, realm: SamlRealm): Promise<IdpMetadata | null> {
    const { file, url } = metadataSettings(settings, realm);
    const cached = this.#cache.get(realm);
    if (file.trim() !== '' || url.trim() === '' || cached === undefined || cached.url !== url) return null;
    const now = this.clock.now();
    if (now - cached.fetchedAt < this.policy.minRefetchMs || this.#recentFailure(realm, url, now) !== null) return null;
    try {
      const fresh = await this.#fetch(realm, url);
      const before = [...cached.metadata.certificates].sort().join();
      return [...fresh.certificates].sort().join() === before ? null : fresh;
    } catch (error) {
      this.logger.warn({ err: error, realm }, 'SAML metadata re-fetch after a failed signature check failed');
      return null;
    }
  }

  /** The realm's fetch of `url`: the one already running, or a new one that later loads share. */
  #fetch(realm: SamlRealm, url: string): Promise<IdpMetadata> {
    const running = this.#inFlight.get(realm);
    if (running?.url === url) return running.result;
    const result = this.#fetchNow(realm, url).finally(() => {
      if (this.#inFlight.get(realm)?.result === result) this.#inFlight.delete(realm);
    });
    this.#inFlight.set(realm, { url, result });
    return result;
  }

  async #fetchNow(realm: SamlRealm, url: string): Promise<IdpMetadata> {
    if (url.startsWith('http:') && !this.#warnedPlainHttp.has(url)) {
      this.#warnedPlainHttp.add(url);
      this.logger.warn({ realm }, 'SAML metadata is fetched over plain http; anyone on the path could swap the keys');
    }
    let metadata: IdpMetadata;
    try {
      metadata = parseIdpMetadata(await fetchMetadataDocument(url, this.fetchOptions));
    } catch (error) {
      this.#failures.set(realm, { url, error, failedAt: this.clock.now() });
      throw error;
    }
    this.#failures.delete(realm);
    this.#cache.set(realm, { url, metadata, fetchedAt: this.clock.now() });
    return metadata;
  }

  /** The realm's failed fetch of `url` within `failureMemoryMs`, or null. */
  #recentFailure(realm: SamlRealm, url: string, now: number): FetchFailure | null {
    const failure = this.#failures.get(realm);
    if (failure === undefined || failure.url !== url) return null;
    return now - failure.failedAt < this.policy.failureMemoryMs ? failure : null;
  }

  #parseFile(realm: SamlRealm, xml: string): IdpMetadata {
    const known = this.#files.get(realm);
    if (known?.xml === xml) return known.metadata;
    const metadata = parseIdpMetadata(xml);
    this.#files.set(realm, { xml, metadata });
    return metadata;
  }
}

function metadataSettings(settings: Settings, realm: SamlRealm): { file: string; url: string } {
  return realm === 'user'
    ? { file: settings.SAMLMetadataFile, url: settings.SAMLMetadataURL }
    : { file: settings.AdminSAMLMetadataFile, url: settings.AdminSAMLMetadataURL };
}
