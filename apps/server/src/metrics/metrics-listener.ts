import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { MetricsListenerConfig } from '../config/config.js';
import { ConfigError } from '../config/config-error.js';

/** What the listener serves: the exposition text of a registry. */
export interface MetricsSource {
  scrape(): Promise<{ contentType: string; body: string }>;
}

export interface MetricsListener {
  /** The port it listens on (the configured one, or the one the system chose for port 0). */
  port: number;
  close(): Promise<void>;
}

/**
 * The Prometheus listener, apart from the API port: only GET /metrics, optionally behind a bearer
 * token (compared in constant time over SHA-256, so its length does not show either). It is a
 * plain node:http server on purpose: it shares none of the API's routes, cookies or sessions.
 */
export async function startMetricsListener(
  config: MetricsListenerConfig,
  source: MetricsSource,
  logger: Logger,
): Promise<MetricsListener> {
  const server = createServer((request, response) => {
    answer(request, response, config.token, source).catch((error: unknown) => {
      logger.error({ err: error }, 'metrics scrape failed');
      if (!response.headersSent) send(response, 500, 'metrics could not be collected\n');
      else response.destroy();
    });
  });
  await listen(server, config);
  const { port } = server.address() as AddressInfo;
  logger.info({ host: config.host, port, token: config.token !== null }, 'metrics listener started');
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function answer(
  request: IncomingMessage,
  response: ServerResponse,
  token: string | null,
  source: MetricsSource,
): Promise<void> {
  const path = (request.url ?? '').split('?')[0];
  if (path !== '/metrics') return send(response, 404, 'not found; metrics are at /metrics\n');
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.setHeader('allow', 'GET, HEAD');
    return send(response, 405, 'method not allowed\n');
  }
  if (token !== null && !bearerMatches(request.headers.authorization, token)) {
    response.setHeader('www-authenticate', 'Bearer realm="postern-metrics"');
    return send(response, 401, 'a bearer token is required\n');
  }
  const { contentType, body } = await source.scrape();
  response.setHeader('cache-control', 'no-store');
  send(response, 200, request.method === 'HEAD' ? '' : body, contentType);
}

function send(response: ServerResponse, status: number, body: string, contentType = 'text/plain; charset=utf-8'): void {
  response.statusCode = status;
  response.setHeader('content-type', contentType);
  response.end(body);
}

/** Whether the Authorization header carries exactly this bearer token. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const presented = /^Bearer (\S+)$/i.exec(header ?? '')?.[1] ?? '';
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(presented), digest(token)) && presented !== '';
}

async function listen(server: Server, config: MetricsListenerConfig): Promise<void> {
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: config.host, port: config.port }, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : '';
    const where = `${config.host}:${config.port}`;
    if (code === 'EADDRINUSE') throw new ConfigError('POSTERN_METRICS_LISTEN', `${where} is already in use`);
    if (code === 'EACCES') throw new ConfigError('POSTERN_METRICS_LISTEN', `no permission to listen on ${where}`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
      throw new ConfigError('POSTERN_METRICS_LISTEN', `cannot listen on ${where} (${code})`);
    }
    throw error;
  }
}
