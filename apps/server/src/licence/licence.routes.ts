import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { LicenceBody, LicenceStatusResponse } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import type { Admin } from '../admins/admins.repo.js';
import { requireAdmin } from '../auth/request-auth.js';
import { installLicence, licenceStatus, refreshLicenceStatus } from './licence.js';

const LicenceStatusQuery = z.object({
  /** `true` re-reads and re-verifies the stored licence, failing when that is impossible. */
  refresh: z.enum(['true', 'false']).optional(),
});

/** Settings → Licence: the licence status, and installing a licence key. Admin session required. */
export function registerLicenceRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  // Authenticate before the body or query is parsed and validated: a caller without an admin session
  // learns nothing about what this route accepts.
  const signedIn = new WeakMap<FastifyRequest, Admin>();
  const onRequest = async (request: FastifyRequest) => {
    signedIn.set(request, (await requireAdmin(ctx, request)).admin);
  };

  routes.get(
    '/api/admin/settings/license',
    { onRequest, schema: { querystring: LicenceStatusQuery, response: { 200: LicenceStatusResponse } } },
    async (request) => {
      const refresh = request.query.refresh === 'true';
      return { data: refresh ? await refreshLicenceStatus(ctx) : await licenceStatus(ctx) };
    },
  );

  routes.put(
    '/api/admin/settings/license',
    { onRequest, schema: { body: LicenceBody, response: { 200: LicenceStatusResponse } } },
    async (request) => {
      const adminName = signedIn.get(request)?.userName;
      return { data: await installLicence(ctx, request.body.License, adminName === undefined ? {} : { adminName }) };
    },
  );
}
