import type { FastifyRequest } from 'fastify';

/**
 * The caller's address: the socket peer, or the X-Forwarded-For client when the peer is a trusted
 * proxy (Fastify's `trustProxy` is set from POSTERN_TRUSTED_PROXIES). IPv4-mapped IPv6 addresses
 * (::ffff:192.0.2.1) are written as plain IPv4, the way firewalls expect them.
 */
export function clientAddress(request: FastifyRequest): string {
  return normaliseAddress(request.ip);
}

export function normaliseAddress(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return mapped?.[1] ?? address;
}
