import { createServer, type Server } from 'node:http';
import type { Logger } from 'pino';
import { canonicalIp } from '@postern/protocol';

/**
 * The built-in IP discovery responder. Behind carrier-grade NAT or a split tunnel a browser can
 * reach different networks through different paths, so the dashboard asks for its address on
 * several ports (the spec's 443, 222, 3389, 8000) and posts what it learned to /api/log_ips; a
 * CGNATOpen knoc then opens those addresses too.
 *
 * Each listener answers any GET with `{"IP": "<the caller's address>", "Port": <port>, "Attestation":
 * "<token>"}` and nothing else: no cookies, no state, CORS open to every origin because the answer is
 * only the caller's own address. The attestation (attestation.ts) is what lets the grant engine trust
 * the address when the browser reports it. X-Forwarded-For is ignored on purpose — the point is the
 * address this path really uses.
 */
export interface DiscoveryResponder {
  /** The ports that are listening (a port that could not be opened is skipped with a warning). */
  ports: number[];
  stop(): Promise<void>;
}

/** Signs "this address was seen on this port now" (see attestation.ts). */
export type Attest = (ip: string, port: number) => string;

function answer(server: Server, port: number, attest: Attest): void {
  server.on('request', (request, response) => {
    const headers = {
      'access-control-allow-origin': '*',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    };
    if (request.method === 'OPTIONS') {
      response.writeHead(204, { ...headers, 'access-control-allow-methods': 'GET', 'access-control-max-age': '600' });
      response.end();
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { ...headers, allow: 'GET' });
      response.end();
      return;
    }
    const peer = request.socket.remoteAddress ?? '';
    const ip = canonicalIp(peer) ?? peer;
    const body = JSON.stringify({ IP: ip, Port: port, Attestation: attest(ip, port) });
    response.writeHead(200, { ...headers, 'content-type': 'application/json' });
    response.end(request.method === 'HEAD' ? undefined : body);
  });
  // Slow or idle clients must not pile up: answers are tiny.
  server.requestTimeout = 5_000;
  server.headersTimeout = 5_000;
  server.keepAliveTimeout = 1_000;
}

/**
 * Opens one listener per port on `host` (the portal's POSTERN_HOST); ports that cannot be opened are
 * logged and skipped. On `::` a listener answers both families (IPv4 callers arrive IPv4-mapped and
 * are answered as IPv4), which dual-stack discovery needs; on `0.0.0.0` it answers IPv4 only.
 */
export async function startDiscoveryResponder(
  host: string,
  ports: readonly number[],
  logger: Logger,
  attest: Attest,
): Promise<DiscoveryResponder> {
  const servers: Server[] = [];
  const listening: number[] = [];
  for (const port of ports) {
    const server = createServer();
    answer(server, port, attest);
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ host, port }, () => {
          server.off('error', reject);
          resolve();
        });
      });
      servers.push(server);
      listening.push(port);
    } catch (error) {
      const code = error instanceof Error && 'code' in error ? String(error.code) : 'error';
      logger.warn({ port, code }, 'IP discovery responder cannot listen on this port; set POSTERN_IP_DISCOVERY_PORTS');
    }
  }
  if (listening.length > 0) logger.info({ host, ports: listening }, 'IP discovery responder listening');
  return {
    ports: listening,
    stop: async () => {
      await Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.closeAllConnections();
              server.close(() => resolve());
            }),
        ),
      );
    },
  };
}
