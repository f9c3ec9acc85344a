import type { FastifyRequest } from 'fastify';
import { formatIp } from '@postern/protocol';
import { parseForwardedHop } from './forwarded-address.js';

/**
 * The caller's address: the socket peer, or the X-Forwarded-For client when the peer is a trusted
 * proxy (Fastify's `trustProxy` is set from POSTERN_TRUSTED_PROXIES), in the canonical spelling of
 * @postern/protocol's net.ts: IPv4-mapped IPv6 (::ffff:192.0.2.1) as plain IPv4, the way firewalls
 * expect it, and IPv6 compressed, so it compares equal to the same address learned any other way.
 * A port a proxy appended to the client (`192.0.2.1:51234`, `[2001:db8::1]:443`) is dropped.
 */
export function clientAddress(request: FastifyRequest): string {
  // Node forgets the peer's address once the socket is gone (a client that hung up mid-request):
  // then there is no address, which every caller treats as one it cannot grant, throttle or match.
  const ip = request.ip as string | undefined;
  if (ip === undefined) return '';
  // The forwarded-for rule (forwarded-for-rule.ts) has refused a forwarded entry that is no address
  // before any handler runs; should one get here all the same, it is no address either, and its
  // text never reaches a session, an audit entry or a throttle key.
  const parsed = parseForwardedHop(ip);
  return parsed === null ? '' : formatIp(parsed);
}
