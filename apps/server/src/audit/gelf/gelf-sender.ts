import { hostname } from 'node:os';
import { parseGelfUrl } from './gelf-url.js';
import { StreamGelfSender } from './stream-sender.js';
import type { GelfSender, GelfSenderOptions } from './types.js';
import { UdpGelfSender } from './udp-sender.js';

/**
 * A sender for the GELFListenerURL setting (`udp://`, `tcp://` or `tls://host:port`). Throws only here,
 * on a URL `parseGelfUrl` refuses or a TLS CA that is not valid PEM; `send()` never throws.
 */
export function createGelfSender(url: string, options: GelfSenderOptions): GelfSender {
  const target = parseGelfUrl(url);
  // GELF requires a non-empty host field.
  const resolved = { ...options, host: options.host.trim() === '' ? hostname() : options.host };
  return target.protocol === 'udp'
    ? new UdpGelfSender(target, resolved.host, resolved.logger)
    : new StreamGelfSender(target, resolved);
}
