import type { AppContext } from '../app-context.js';

/** How a browser reached the portal: the page's host name and scheme (as Fastify sees them). */
export interface PortalAddress {
  hostname: string;
  protocol: string;
}

/** A host name or a bracketed IPv6 literal, without a port: safe to put in a URL and a CSP source. */
const PLAIN_HOST = /^[A-Za-z0-9.-]+$|^\[[0-9A-Fa-f:.]+\]$/;

/**
 * Where browsers probe for their addresses (the status's IPApi): the admin's DiscoverIPURL, or — when
 * it is empty — the built-in responder (responder.ts) on the portal's own host name. Empty when
 * discovery is off, and for a DiscoverIPURL while DiscoverIPTrustUnattested is off: such a service
 * cannot sign its answers, so the grants would refuse every address it reports (the browser need not
 * ask it, and the page need not be allowed to reach it).
 *
 * The built-in responder speaks plain HTTP, and a page served over HTTPS may not fetch plain HTTP
 * (browsers block it as mixed content), so it is offered only to a portal reached over plain HTTP.
 * Behind TLS, DiscoverIPURL names an HTTPS discovery service.
 */
export function discoveryBase(
  ctx: AppContext,
  settings: { DiscoverIP: boolean; DiscoverIPURL: string; DiscoverIPTrustUnattested: boolean },
  portal: PortalAddress,
): string {
  if (!settings.DiscoverIP) return '';
  if (settings.DiscoverIPURL !== '') return settings.DiscoverIPTrustUnattested ? settings.DiscoverIPURL : '';
  if (ctx.config.ipDiscoveryPorts.length === 0) return '';
  const published = ctx.config.publicUrl === null ? null : new URL(ctx.config.publicUrl);
  const protocol = published === null ? portal.protocol : published.protocol.replace(/:$/, '');
  const host = published === null ? portal.hostname : published.hostname;
  if (protocol !== 'http' || !PLAIN_HOST.test(host)) return '';
  return `http://${host}`;
}

/**
 * The Content-Security-Policy source that lets the page fetch the discovery URL on any port (the
 * probes go to 443, 222, 3389 and 8000 of that host), or null when there is nothing to allow.
 */
export function discoveryConnectSource(base: string): string | null {
  if (!URL.canParse(base)) return null;
  const url = new URL(base);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  // Only scheme and host: a path or query in a CSP source would be matched, and this names the host.
  return `${url.protocol}//${url.hostname}:*`;
}

/** A CSP header with one more connect-src source. */
export function withConnectSource(policy: string, source: string): string {
  return policy
    .split(';')
    .map((directive) => {
      const trimmed = directive.trim();
      return trimmed.startsWith('connect-src ') || trimmed === 'connect-src' ? `${trimmed} ${source}` : trimmed;
    })
    .join(';');
}
