import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { LicenceBody, LicenceStatusResponse } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { requireAdmin } from '../http/request-auth.js';
import { installLicence, licenceStatus, refreshLicenceStatus } from './licence.js';

const LicenceStatusQuery = z.object({
  /** `true` re-reads and re-verifies the stored licence, failing when that is impossible. */
  refresh: z.enum(['true', 'false']).optional(),
});

/** Settings → Licence: the licence status, and installing a licence key. Admin session required. */
export function registerLicenceRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get(
    '/api/admin/settings/license',
    { schema: { querystring: LicenceStatusQuery, response: { 200: LicenceStatusResponse } } },
    async (request) => {
      const refresh = request.query.refresh === 'true';
      return { data: refresh ? await refreshLicenceStatus(ctx) : await licenceStatus(ctx) };
    },
  );

  routes.put(
    '/api/admin/settings/license',
    { schema: { body: LicenceBody, response: { 200: LicenceStatusResponse } } },
    async (request) => {
      const { admin } = await requireAdmin(ctx, request);
      return { data: await installLicence(ctx, { adminName: admin.userName }, request.body.License) };
    },
  );
}
