import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context.js';
import { ServiceUnavailableError } from '../errors.js';
import { pendingMigrations } from '../store/migrate.js';
import type { ClockHealth } from './clock-watch.js';
import { probeWrite } from '../store/write-health.js';
import { errorBody } from '../http/error-handler.js';
import { ErrorCodes } from '@postern/protocol';

/** How long readiness waits for the store before calling it unreachable. */
export const READINESS_STORE_TIMEOUT_MS = 2_000;

/**
 * GET /healthz (liveness: the process answers; it never touches the store, so a store outage does
 * not get the process restarted) and GET /readyz (readiness: the store answers a small query in
 * time, has every migration this release needs, and takes this process's writes). Load balancers
 * send traffic only to replicas whose /readyz is 200. Both say nothing an outsider could use beyond
 * "up" or "not ready".
 *
 * Writes: a full disk still lets reads through, so readiness asks the store's write health (fed by
 * every write this process makes, store/write-health.ts). While writes fail it makes a small probe
 * write itself, so readiness turns back by itself once space is freed, even on a replica that gets
 * no requests (taken out of rotation); while they work it writes nothing.
 *
 * /readyz also says `Clock`: `ok`, `stepped` (a step of this server's clock in the last 15 minutes)
 * or `offset` (the store's or the agents' clocks are more than 30 s away); no figures, those are in
 * the metrics. A clock problem does not make the server unready: agents keep expiring entries on
 * their own monotonic clocks and refuse to lengthen them, and taking every replica out of the load
 * balancer (all share one time source) would stop people from revoking and signing out.
 */
export function registerHealthRoutes(app: FastifyInstance, ctx: AppContext, clock?: { health(): ClockHealth }): void {
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
    if (ctx.writeHealth.failing) {
      // Its outcome reaches the write health like any write's; a failure is what we expect here.
      await withinTimeLimit(probeWrite(ctx.db, ctx.writeHealth), READINESS_STORE_TIMEOUT_MS).catch(() => undefined);
      if (ctx.writeHealth.failing) {
        // Answered here rather than thrown to the error handler, which warns: the write health warned
        // once when writes began to fail, and a warning per poll would only add to a full disk.
        request.log.debug({ err: ctx.writeHealth.lastError }, 'not ready: store writes are failing');
        return reply.code(503).send(errorBody(ErrorCodes.storeUnavailable, 'store writes failing'));
      }
    }
    return { data: { Status: 'ready', ...(clock === undefined ? {} : { Clock: clock.health() }) } };
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
