import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { KNOCPROXY_COOKIE_MAX_AGE_SECONDS } from '@postern/protocol';

/** The proxy cookie: a marker that the browser came through knocproxy. Admission is always by address. */
const KNOCPROXY_COOKIE_NAME = 'postern_knocproxy';

/** The Set-Cookie value for an admitted response (the spec: 25200 s, HttpOnly, Secure, SameSite=Lax). */
export function proxyCookie(): string {
  return `${KNOCPROXY_COOKIE_NAME}=1; Max-Age=${KNOCPROXY_COOKIE_MAX_AGE_SECONDS}; Path=/; HttpOnly; Secure; SameSite=Lax`;
}

/** Headers that describe one connection, not the message (RFC 9110 §7.6.1); a proxy never forwards them. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** `headers` without hop-by-hop headers, including any the Connection header names. */
export function withoutHopByHop(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const named = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter((name) => name !== ''),
  );
  const kept: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.has(name)) continue;
    kept[name] = value;
  }
  return kept;
}

/** The Cookie header without the proxy's own cookie, which is none of the upstream's business. */
export function withoutProxyCookie(cookie: string | undefined): string | undefined {
  if (cookie === undefined) return undefined;
  const kept = cookie
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part !== '' && !part.startsWith(`${KNOCPROXY_COOKIE_NAME}=`));
  return kept.length === 0 ? undefined : kept.join('; ');
}

/** Where a request came from, as the upstream should see it. */
export interface ForwardedFor {
  /** The X-Forwarded-For chain, client first. */
  chain: string[];
  proto: 'http' | 'https';
  /** The Host the client asked for. */
  host: string;
}

/**
 * The request headers sent upstream: the client's headers without hop-by-hop ones or the proxy
 * cookie, Host set to the upstream's, and X-Forwarded-For/-Proto/-Host describing the client.
 */
export function upstreamRequestHeaders(
  incoming: IncomingHttpHeaders,
  upstreamHost: string,
  forwarded: ForwardedFor,
): OutgoingHttpHeaders {
  const headers = withoutHopByHop(incoming);
  delete headers.forwarded;
  const cookie = withoutProxyCookie(incoming.cookie);
  if (cookie === undefined) delete headers.cookie;
  else headers.cookie = cookie;
  headers.host = upstreamHost;
  headers['x-forwarded-for'] = forwarded.chain.join(', ');
  headers['x-forwarded-proto'] = forwarded.proto;
  headers['x-forwarded-host'] = forwarded.host;
  return headers;
}

/** The upstream's response headers for the client: hop-by-hop ones dropped, the proxy cookie added. */
export function clientResponseHeaders(upstream: IncomingHttpHeaders): OutgoingHttpHeaders {
  const headers = withoutHopByHop(upstream);
  const cookies = upstream['set-cookie'] ?? [];
  headers['set-cookie'] = [...cookies, proxyCookie()];
  return headers;
}
