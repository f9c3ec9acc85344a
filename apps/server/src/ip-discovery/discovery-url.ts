import type { AppContext } from '../app-context.js';
import { settingValue, type Settings } from '../settings/settings.js';

/** How a browser reached the portal: the page's host name and scheme (as Fastify sees them). */
export interface PortalAddress {
  hostname: string;
  protocol: string;
}

/** The settings the discovery URLs are worked out from. */
export type DiscoverySettings = Pick<
  Settings,
  'DiscoverIP' | 'DiscoverIPURL' | 'DiscoverIPv4URL' | 'DiscoverIPv6URL' | 'DiscoverIPTrustUnattested'
>;

const DISCOVERY_SETTING_KEYS = [
  'DiscoverIP',
  'DiscoverIPURL',
  'DiscoverIPv4URL',
  'DiscoverIPv6URL',
  'DiscoverIPTrustUnattested',
] as const satisfies readonly (keyof DiscoverySettings)[];

/** Where browsers probe for their addresses: the system status's IPApi, IPv4Api and IPv6Api ('' = not). */
export interface DiscoveryUrls {
  IPApi: string;
  IPv4Api: string;
  IPv6Api: string;
}

/** A host name or a bracketed IPv6 literal, without a port: safe to put in a URL and a CSP source. */
const PLAIN_HOST = /^[A-Za-z0-9.-]+$|^\[[0-9A-Fa-f:.]+\]$/;

/** The discovery settings in one query (the page's CSP needs them on every HTML answer). */
export async function readDiscoverySettings(ctx: AppContext): Promise<DiscoverySettings> {
  const rows = await ctx.db
    .selectFrom('settings')
    .select(['key', 'value'])
    .where('key', 'in', DISCOVERY_SETTING_KEYS)
    .execute();
  const stored = new Map(rows.map((row) => [row.key, row.value]));
  return {
    DiscoverIP: settingValue('DiscoverIP', stored.get('DiscoverIP')),
    DiscoverIPURL: settingValue('DiscoverIPURL', stored.get('DiscoverIPURL')),
    DiscoverIPv4URL: settingValue('DiscoverIPv4URL', stored.get('DiscoverIPv4URL')),
    DiscoverIPv6URL: settingValue('DiscoverIPv6URL', stored.get('DiscoverIPv6URL')),
    DiscoverIPTrustUnattested: settingValue('DiscoverIPTrustUnattested', stored.get('DiscoverIPTrustUnattested')),
  };
}

/** The scheme and host name browsers use for the portal: the published URL's, else the request's. */
function portalOrigin(ctx: AppContext, portal: PortalAddress): PortalAddress {
  const published = ctx.config.publicUrl === null ? null : new URL(ctx.config.publicUrl);
  return published === null ? portal : { protocol: published.protocol.replace(/:$/, ''), hostname: published.hostname };
}

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
  settings: Pick<DiscoverySettings, 'DiscoverIP' | 'DiscoverIPURL' | 'DiscoverIPTrustUnattested'>,
  portal: PortalAddress,
): string {
  if (!settings.DiscoverIP) return '';
  if (settings.DiscoverIPURL !== '') return settings.DiscoverIPTrustUnattested ? settings.DiscoverIPURL : '';
  if (ctx.config.ipDiscoveryPorts.length === 0) return '';
  const { protocol, hostname } = portalOrigin(ctx, portal);
  if (protocol !== 'http' || !PLAIN_HOST.test(hostname)) return '';
  return `http://${hostname}`;
}

/**
 * A dual-stack discovery URL (DiscoverIPv4URL, DiscoverIPv6URL) as browsers get it: as configured,
 * while discovery is on and what it answers can count — the built-in responder runs (the name is
 * meant to lead to it, on a host name with only an A or only an AAAA record, and its answers are
 * attested), or DiscoverIPTrustUnattested is on (an external service, which cannot attest). Empty
 * otherwise, and for a plain-HTTP URL under a portal served over HTTPS (the browser would block the
 * probe as mixed content).
 */
function familyUrl(ctx: AppContext, settings: DiscoverySettings, url: string, portal: PortalAddress): string {
  if (!settings.DiscoverIP || url === '' || !URL.canParse(url)) return '';
  if (!settings.DiscoverIPTrustUnattested && ctx.config.ipDiscoveryPorts.length === 0) return '';
  if (new URL(url).protocol === 'http:' && portalOrigin(ctx, portal).protocol !== 'http') return '';
  return url;
}

/** The status's three discovery URLs: the one of the CGNAT probes, and the IPv4-only and IPv6-only ones. */
export function discoveryUrls(ctx: AppContext, settings: DiscoverySettings, portal: PortalAddress): DiscoveryUrls {
  return {
    IPApi: discoveryBase(ctx, settings, portal),
    IPv4Api: familyUrl(ctx, settings, settings.DiscoverIPv4URL, portal),
    IPv6Api: familyUrl(ctx, settings, settings.DiscoverIPv6URL, portal),
  };
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

/** The CSP sources for every discovery URL browsers are sent to, each once. */
export function discoveryConnectSources(urls: DiscoveryUrls): string[] {
  const sources = [urls.IPApi, urls.IPv4Api, urls.IPv6Api].map(discoveryConnectSource);
  return [...new Set(sources.filter((source): source is string => source !== null))];
}

/** A CSP header with more connect-src sources. */
export function withConnectSource(policy: string, source: string): string {
  return policy
    .split(';')
    .map((directive) => {
      const trimmed = directive.trim();
      return trimmed.startsWith('connect-src ') || trimmed === 'connect-src' ? `${trimmed} ${source}` : trimmed;
    })
    .join(';');
}
