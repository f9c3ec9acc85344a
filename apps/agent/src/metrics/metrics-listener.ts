import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { ConfigError } from '../config/config-error.js';
import type { AgentMetrics } from './agent-metrics.js';

export interface AgentMetricsListener {
  port: number;
  close(): Promise<void>;
}

/**
 * GET /metrics on a loopback address (the setting accepts nothing else: the agent has no token to
 * protect it, and the host's exporter or a local Prometheus agent scrapes it). Nothing else is served.
 */
export async function startAgentMetricsListener(
  listen: { host: string; port: number },
  metrics: Pick<AgentMetrics, 'scrape'>,
  logger: Logger,
): Promise<AgentMetricsListener> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.statusCode = path === '/metrics' ? 405 : 404;
      response.end();
      return;
    }
    metrics.scrape().then(
      ({ contentType, body }) => {
        response.setHeader('content-type', contentType);
        response.end(request.method === 'HEAD' ? '' : body);
      },
      (error: unknown) => {
        logger.error({ error: error instanceof Error ? error.message : String(error) }, 'metrics scrape failed');
        response.statusCode = 500;
        response.end();
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new ConfigError(
          'POSTERN_AGENT_METRICS_LISTEN',
          `cannot listen on ${listen.host}:${listen.port} (${error.code ?? error.message})`,
        ),
      ),
    );
    server.listen({ host: listen.host, port: listen.port }, resolve);
  });
  const { port } = server.address() as AddressInfo;
  logger.info({ host: listen.host, port }, 'metrics listener started');
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
