import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context.js';
import { ServiceUnavailableError } from '../errors.js';
import { pendingMigrations } from '../store/migrate.js';

/** How long readiness waits for the store before calling it unreachable. */
export const READINESS_STORE_TIMEOUT_MS = 2_000;

/**
 * GET /healthz (liveness: the process answers; it never touches the store, so a store outage does
 * not get the process restarted) and GET /readyz (readiness: the store answers a small query in
 * time and has every migration this release needs). Load balancers send traffic only to replicas
 * whose /readyz is 200. Both say nothing an outsider could use beyond "up" or "not ready".
 */
export function registerHealthRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get('/healthz', async (_request, reply) => {
    void reply.header('cache-control', 'no-store');
    return { data: { Status: 'ok' } };
  });

  app.get('/readyz', async (request, reply) => {
    void reply.header('cache-control', 'no-store');
    let pending: string[];
    try {
      pending = await withinTimeLimit(pendingMigrations(ctx.db), READINESS_STORE_TIMEOUT_MS);
    } catch (error) {
      request.log.warn({ err: error }, 'not ready: the store did not answer');
      throw new ServiceUnavailableError({ extra: 'store unreachable' });
    }
    if (pending.length > 0) {
      throw new ServiceUnavailableError({ extra: `migrations pending: ${pending.join(', ')}` });
    }
    return { data: { Status: 'ready' } };
  });
}

/** The work's result, or a rejection once `ms` have passed (the work itself goes on, unobserved). */
function withinTimeLimit<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}
