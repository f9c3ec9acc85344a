import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AdminOtpVerifyBody, OtpGenerateResponse, OtpVerifyBody, OtpVerifyResponse } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { generateSecret, verifyAdminCode, verifyUserCode } from './second-factor.service.js';
import { requestMeta, sessionToken, setSessionCookie } from '../http/request-auth.js';

/**
 * The second factor for users. These routes serve sign-ins that wait for a code; a finished
 * sign-in, or an enrolment confirmed with a code from the new authenticator, gets a new session
 * (and cookie) in place of the pending one.
 */
export function registerUserOtpRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get('/api/otp/generate', { schema: { response: { 200: OtpGenerateResponse } } }, async (request) => ({
    data: await generateSecret(ctx, 'user', sessionToken(ctx, request, 'user')),
  }));

  routes.post(
    '/api/otp/verify',
    { schema: { body: OtpVerifyBody, response: { 200: OtpVerifyResponse } } },
    async (request, reply) => {
      const verified = await verifyUserCode(
        ctx,
        sessionToken(ctx, request, 'user'),
        request.body.Code,
        requestMeta(request),
      );
      const kiosk = verified.info.KioskMode;
      setSessionCookie(ctx, reply, 'user', verified.session.token, kiosk ? null : verified.session.endsAt);
      return { data: verified.result };
    },
  );
}

/** The second factor for administrators, as {@link registerUserOtpRoutes} for users. */
export function registerAdminOtpRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get('/api/admin/otp/generate', { schema: { response: { 200: OtpGenerateResponse } } }, async (request) => ({
    data: await generateSecret(ctx, 'admin', sessionToken(ctx, request, 'admin')),
  }));

  routes.post(
    '/api/admin/otp/verify',
    { schema: { body: AdminOtpVerifyBody, response: { 200: OtpVerifyResponse } } },
    async (request, reply) => {
      const body = request.body;
      const verified = await verifyAdminCode(
        ctx,
        sessionToken(ctx, request, 'admin'),
        body.deferEnrolment === true ? { defer: true } : { code: body.Code ?? '' },
        requestMeta(request),
      );
      setSessionCookie(ctx, reply, 'admin', verified.session.token, verified.session.endsAt);
      return { data: verified.result };
    },
  );
}
