import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AuthenticationSettingsBody,
  AuthenticationSettingsResponse,
  ErrorCodes,
  LOGO_MAX_BYTES,
  SamlKeyCertResponse,
  SettingsConfigBody,
  SettingsCustomizeBody,
  SettingsResponse,
} from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { requireAdmin } from '../http/request-auth.js';
import { errorBody } from '../http/error-handler.js';
import { readSettings } from './settings.js';
import type { LogoCodec } from './logo-codec.js';
import {
  authenticationSettings,
  decodeLogo,
  generateSamlKeyCert,
  settingsRecord,
  updateAuthentication,
  updateConfig,
  updateCustomisation,
} from './settings.service.js';

/** Two logos as base64 (4/3 of their bytes) plus the other fields. */
const CUSTOMIZE_BODY_LIMIT = Math.ceil(LOGO_MAX_BYTES * 2 * (4 / 3)) + 64 * 1024;

/** /api/admin/settings/*: the settings, authentication and SAML keys (admins); `logos` re-encodes logos. */
export function registerSettingsRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  afterConfigChange: () => Promise<void>,
  logos: LogoCodec,
): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const adminOf = async (request: Parameters<typeof requireAdmin>[1]) => (await requireAdmin(ctx, request)).admin;

  routes.get('/api/admin/settings', { schema: { response: { 200: SettingsResponse } } }, async () => ({
    data: await settingsRecord(ctx),
  }));

  routes.put(
    '/api/admin/settings/config',
    { schema: { body: SettingsConfigBody, response: { 200: SettingsResponse } } },
    async (request) => {
      await updateConfig(ctx, await adminOf(request), request.body);
      // Apply DebugMode and the GELF target on this replica now; others pick it up within seconds.
      await afterConfigChange();
      return { data: await settingsRecord(ctx) };
    },
  );

  routes.put(
    '/api/admin/settings/customize',
    { bodyLimit: CUSTOMIZE_BODY_LIMIT, schema: { body: SettingsCustomizeBody, response: { 200: SettingsResponse } } },
    async (request) => {
      await updateCustomisation(ctx, await adminOf(request), request.body, logos);
      return { data: await settingsRecord(ctx) };
    },
  );

  routes.get(
    '/api/admin/settings/authentication',
    { schema: { response: { 200: AuthenticationSettingsResponse } } },
    async () => ({ data: await authenticationSettings(ctx) }),
  );

  routes.put(
    '/api/admin/settings/authentication',
    { schema: { body: AuthenticationSettingsBody, response: { 200: AuthenticationSettingsResponse } } },
    async (request) => {
      await updateAuthentication(ctx, await adminOf(request), request.body);
      return { data: await authenticationSettings(ctx) };
    },
  );

  for (const [path, realm] of [
    ['/api/admin/settings/generateUserSamlKeyCert', 'user'],
    ['/api/admin/settings/generateAdminSamlKeyCert', 'admin'],
  ] as const) {
    routes.post(path, { schema: { response: { 200: SamlKeyCertResponse } } }, async (request) => ({
      data: { Certificate: await generateSamlKeyCert(ctx, await adminOf(request), realm) },
    }));
  }
}

/** GET /api/branding/logo/{dark|light}: the uploaded logos, which the login pages show to everyone. */
export function registerBrandingRoutes(app: FastifyInstance, ctx: AppContext): void {
  app
    .withTypeProvider<ZodTypeProvider>()
    .get(
      '/api/branding/logo/:variant',
      { schema: { params: z.object({ variant: z.enum(['dark', 'light']) }) } },
      async (request, reply) => {
        const settings = await readSettings(ctx.db);
        const logo = decodeLogo(request.params.variant === 'dark' ? settings.Logo : settings.LightModeLogo);
        if (logo === null) return reply.code(404).send(errorBody(ErrorCodes.notFound));
        if (request.headers['if-none-match'] === `"${logo.etag}"`) return reply.code(304).send();
        return reply
          .header('etag', `"${logo.etag}"`)
          .header('cache-control', 'public, max-age=300')
          .type(logo.contentType)
          .send(logo.bytes);
      },
    );
}
