import type { FastifyInstance } from 'fastify';

/**
 * While the app closes (server shutdown), every answer carries `Connection: close`.
 *
 * Why: the listener's close waits for every connection to end, and closes only the idle ones itself.
 * A request in flight when the stop began was answered keep-alive, and its connection then idled
 * until the keep-alive timeout (72 s) held the stop, and with it a restart on the same store. Closed
 * with its answer instead, each connection ends as soon as its request is done. (A request that
 * arrives during the close is refused by Fastify's return503OnClosing, with the same header.)
 */
export function installClosingRule(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onSend', async (_request, reply) => {
    if (closing) void reply.header('connection', 'close');
  });
}
