import type { ServerMetadata } from 'openid-client';
import type { Clock } from '../lib/clock.js';
import { discoverProvider } from './oidc-client.js';
import type { OidcRealmSettings } from './oidc-settings.js';

/** Checked metadata is used this long before it is read again (endpoints rarely move). */
export const METADATA_TTL_MS = 5 * 60_000;
/**
 * A failed read is remembered this long, so anonymous requests to the login route cannot make
 * Postern call a failing provider once each.
 */
export const METADATA_FAILURE_TTL_MS = 15_000;

/** A failed read another caller made, handed to the callers that shared it (only the first reports it). */
export class SharedMetadataFailure extends Error {
  constructor(readonly failure: unknown) {
    super(failure instanceof Error ? failure.message : String(failure));
    this.name = 'SharedMetadataFailure';
  }
}

interface Entry {
  until: number;
  result: Promise<ServerMetadata>;
}

/**
 * Each provider's checked metadata, per issuer, in this process only. It is a cache, not state: any
 * replica reads the same metadata from the provider, and a flow started on one replica is finished
 * on another from the store (oidc-flows.ts). Concurrent reads of one issuer share one request. The
 * key sets are not cached here (oidc-client.ts: a new client each step).
 */
export class OidcMetadataSource {
  readonly #entries = new Map<string, Entry>();

  constructor(private readonly clock: Clock) {}

  /**
   * The issuer's metadata, read when not cached. A failure reaches the caller that read it as it is,
   * and every other caller sharing it as SharedMetadataFailure, so that only one reports it.
   */
  async load(r: OidcRealmSettings): Promise<ServerMetadata> {
    const now = this.clock.now();
    const cached = this.#entries.get(r.issuer);
    if (cached !== undefined && cached.until > now) {
      try {
        return await cached.result;
      } catch (error) {
        throw new SharedMetadataFailure(error);
      }
    }
    const result = discoverProvider(r);
    const entry: Entry = { until: now + METADATA_TTL_MS, result };
    this.#entries.set(r.issuer, entry);
    result.catch(() => {
      // Kept only briefly; a success stored meanwhile is left alone.
      if (this.#entries.get(r.issuer) === entry) entry.until = this.clock.now() + METADATA_FAILURE_TTL_MS;
    });
    return result;
  }

  /** Metadata just read and checked elsewhere (the configuration test): used from now on. */
  remember(issuer: string, metadata: ServerMetadata): void {
    this.#entries.set(issuer, { until: this.clock.now() + METADATA_TTL_MS, result: Promise.resolve(metadata) });
  }
}
