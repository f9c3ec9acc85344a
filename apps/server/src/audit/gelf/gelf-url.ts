import { isIP } from 'node:net';

/** A GELF listener address. `host` is a name or a bare IP address (no brackets around IPv6). */
export interface GelfTarget {
  protocol: 'udp' | 'tcp' | 'tls';
  host: string;
  port: number;
}

const PROTOCOLS = new Set(['udp', 'tcp', 'tls']);
const HOSTNAME =
  /^(?=.{1,253}\.?$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;

/**
 * Reads `udp://host:port`, `tcp://host:port` or `tls://host:port` (IPv6 as `[::1]`). Throws on any
 * other scheme, a missing or out-of-range port, credentials, a path, a query or a fragment.
 */
export function parseGelfUrl(url: string): GelfTarget {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    throw new Error('GELF URL is not a valid URL');
  }
  const protocol = parsed.protocol.slice(0, -1);
  if (!PROTOCOLS.has(protocol)) throw new Error('URL must be udp, tcp, or tls');
  if (parsed.username !== '' || parsed.password !== '') throw new Error('GELF URL must not carry credentials');
  if ((parsed.pathname !== '' && parsed.pathname !== '/') || parsed.search !== '' || parsed.hash !== '') {
    throw new Error('GELF URL must be only scheme, host and port');
  }

  // Schemes the URL standard does not know keep IPv6 brackets in `hostname`; sockets want them off.
  const host = parsed.hostname.startsWith('[') ? parsed.hostname.slice(1, -1) : parsed.hostname;
  if (isIP(host) === 0 && !HOSTNAME.test(host)) throw new Error('GELF URL has no valid host');

  const port = Number(parsed.port);
  if (!/^\d+$/.test(parsed.port) || port < 1 || port > 65_535) {
    throw new Error('GELF URL needs a port from 1 to 65535');
  }
  return { protocol: protocol as GelfTarget['protocol'], host, port };
}

/** The target written back as a URL, for log lines. */
export function formatGelfTarget({ protocol, host, port }: GelfTarget): string {
  return `${protocol}://${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}
