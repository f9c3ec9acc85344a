import type { FastifyRequest } from 'fastify';
import { formatIp, parseIp } from '@postern/protocol';

/**
 * The caller's address: the socket peer, or the X-Forwarded-For client when the peer is a trusted
 * proxy (Fastify's `trustProxy` is set from POSTERN_TRUSTED_PROXIES), in the canonical spelling of
 * @postern/protocol's net.ts: IPv4-mapped IPv6 (::ffff:192.0.2.1) as plain IPv4, the way firewalls
 * expect it, and IPv6 compressed, so it compares equal to the same address learned any other way.
 */
export function clientAddress(request: FastifyRequest): string {
  // Node forgets the peer's address once the socket is gone (a client that hung up mid-request):
  // then there is no address, which every caller treats as one it cannot grant, throttle or match.
  const ip = request.ip as string | undefined;
  if (ip === undefined) return '';
  // One address only: a network a proxy might put in X-Forwarded-For stays as it is, and never counts
  // as an address (the grant engine refuses what parseIp refuses).
  const parsed = parseIp(ip);
  return parsed === null ? ip : formatIp(parsed);
}
