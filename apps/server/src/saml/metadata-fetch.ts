/**
 * Fetching an IdP's metadata from the URL an administrator configured. The rules of DESIGN.md for
 * outbound URLs: only http and https, a deadline, a size cap, and redirects followed only within the
 * same host (so a compromised or misconfigured page cannot bounce us to another server, and never
 * to file:, data: or other schemes, which fetch would not load anyway).
 */
import { readBodyCapped } from '../lib/capped-body.js';

export interface MetadataFetchOptions {
  /** One deadline for the whole fetch, redirects and body included. */
  timeoutMs: number;
  /** Bodies larger than this are refused while they stream in. */
  maxBytes: number;
  maxRedirects: number;
}

export const METADATA_FETCH_DEFAULTS: MetadataFetchOptions = {
  timeoutMs: 5_000,
  maxBytes: 1024 * 1024,
  maxRedirects: 3,
};

/** Why metadata could not be fetched; safe to log and to show an administrator. */
export class MetadataFetchError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MetadataFetchError';
  }
}

const ALLOWED_PROTOCOLS = new Set(['http:', 'https:']);

export async function fetchMetadataDocument(
  url: string,
  options: MetadataFetchOptions = METADATA_FETCH_DEFAULTS,
): Promise<string> {
  let target = parseAllowedUrl(url);
  const origin = target;
  const signal = AbortSignal.timeout(options.timeoutMs);
  try {
    for (let redirects = 0; ; redirects += 1) {
      const response = await fetch(target, {
        redirect: 'manual',
        signal,
        headers: { accept: 'application/samlmetadata+xml, application/xml, text/xml;q=0.9, */*;q=0.1' },
      });
      if (response.status >= 300 && response.status < 400) {
        await response.body?.cancel();
        const location = response.headers.get('location');
        if (location === null) throw new MetadataFetchError(`${response.status} without a Location`);
        if (redirects >= options.maxRedirects) throw new MetadataFetchError('too many redirects');
        const next = parseAllowedUrl(new URL(location, target).toString());
        // Same host (and port) only; an http to https upgrade is fine, a downgrade is not.
        const downgrade = target.protocol === 'https:' && next.protocol === 'http:';
        if (next.host !== origin.host || downgrade) {
          throw new MetadataFetchError(`refused a redirect from ${target.host} to ${next.protocol}//${next.host}`);
        }
        target = next;
        continue;
      }
      if (response.status !== 200) {
        await response.body?.cancel();
        throw new MetadataFetchError(`the metadata URL answered ${response.status}`);
      }
      const body = await readBodyCapped(
        response,
        options.maxBytes,
        () => new MetadataFetchError(`the metadata is larger than ${options.maxBytes} bytes`),
      );
      return body === null ? '' : body.toString('utf8');
    }
  } catch (error) {
    if (error instanceof MetadataFetchError) throw error;
    if (signal.aborted) throw new MetadataFetchError(`no answer within ${options.timeoutMs} ms`, { cause: error });
    const reason = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : '';
    throw new MetadataFetchError(`the metadata URL could not be fetched (${reason})`, { cause: error });
  }
}

function parseAllowedUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new MetadataFetchError('the metadata URL is not a URL');
  }
  if (!ALLOWED_PROTOCOLS.has(parsed.protocol)) {
    throw new MetadataFetchError(`the metadata URL must be http or https, not ${parsed.protocol}`);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    // Credentials in the URL would be sent on every fetch and show up in logs.
    throw new MetadataFetchError('the metadata URL must not carry credentials');
  }
  return parsed;
}
