import type { FastifyInstance } from 'fastify';
import { BadRequestError } from '../errors.js';
import { parseForwardedHop, type ProxyTrust } from '../lib/forwarded-address.js';

/** The Extra of the refusal: fixed, so nothing the client wrote is echoed back. */
export const FORWARDED_FOR_REFUSAL = 'X-Forwarded-For: the client entry is not an IP address';

/** The most of a refused header the log keeps: enough to recognise it, too little to flood the log. */
const LOGGED_HEADER_CHARS = 200;

/**
 * Refuses, on every route and before any handler, a request whose trusted proxy forwarded a client
 * address that is not one. The client address becomes the session's, the audit entry's, the
 * throttle's and the grant's address, so text such as `not-an-ip` or markup must never get that
 * far; it means a misconfigured proxy or a client that wrote the header itself in front of a proxy
 * that passes it through, and both are better refused (and logged) than guessed at.
 *
 * The client is the hop Fastify chose the way proxy-addr does: walking from the right, the first
 * hop that is not a trusted proxy. Whatever stands left of it was written by the client and is not
 * looked at. A header with no hop at all (empty, or only commas) from a trusted proxy is refused too.
 * From any other peer X-Forwarded-For is ignored, as Fastify ignores it.
 */
export function installForwardedForRule(app: FastifyInstance, trust: ProxyTrust | null): void {
  if (trust === null) return;
  app.addHook('onRequest', (request, _reply, done) => {
    const header = request.headers['x-forwarded-for'];
    const peer = request.socket.remoteAddress;
    if (header === undefined || peer === undefined || !trust(peer)) {
      done();
      return;
    }
    // `ips` is the peer followed by the hops Fastify walked; one entry means the header named none.
    const walkedHops = request.ips ?? [];
    if (walkedHops.length > 1 && parseForwardedHop(request.ip) !== null) {
      done();
      return;
    }
    // The logger writes the value as a JSON string, so whatever it holds stays one escaped field.
    request.log.warn(
      { peer, forwardedFor: String(header).slice(0, LOGGED_HEADER_CHARS) },
      'refused a request whose X-Forwarded-For names no client address',
    );
    done(new BadRequestError({ extra: FORWARDED_FOR_REFUSAL }));
  });
}
