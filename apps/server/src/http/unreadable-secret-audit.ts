import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context.js';
import { SecretUnreadableError } from '../secrets/secret-box.js';
import { reportUnreadableSecret } from '../secrets/unreadable-secrets.js';
import { requestMeta } from './request-auth.js';

/**
 * A request that met a secret it cannot open is answered 409 err.secretUnreadable by the error
 * handler, which has no context; this hook, which runs just before it, logs and audits the secret's
 * place (once an hour each, see secrets/unreadable-secrets.ts).
 */
export function installUnreadableSecretAudit(app: FastifyInstance, ctx: AppContext): void {
  app.addHook('onError', async (request, _reply, error) => {
    if (!(error instanceof SecretUnreadableError)) return;
    try {
      await reportUnreadableSecret(ctx, ctx.db, error, { IpAddress: requestMeta(request).ipAddress });
    } catch (reportError) {
      // The answer goes out regardless; a store too broken to audit shows in its own errors.
      request.log.error({ err: reportError }, 'could not audit an unreadable secret');
    }
  });
}
