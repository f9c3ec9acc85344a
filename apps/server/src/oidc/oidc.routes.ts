import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorCodes, OIDC_REALMS, OidcTestBody, OidcTestResponse, type OidcRealm } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { requestMeta, sessionToken, setSessionCookie } from '../http/request-auth.js';
import { flowCookieName, flowCookieOptions, loginPageWithError, OIDC_PATHS } from './oidc-endpoints.js';
import { OIDC_FLOW_LIFETIME_MS } from './oidc-flows.js';
import { OidcRefusal } from './oidc-signin.js';
import type { OidcService } from './oidc.service.js';
import { testOidcConfiguration } from './oidc-test.js';

/**
 * The login's query: on the user realm, `kioskMode=true` (or `1`) starts a kiosk sign-in; anything
 * else is an ordinary one (these routes answer browsers with redirects and refuse nothing here).
 */
const LoginQuery = z.object({ kioskMode: z.union([z.string(), z.array(z.string())]).optional() });

/** A parameter of the provider's answer as a query parser may give it: once, or repeated. */
const Param = z.union([z.string(), z.array(z.string())]).optional();
/**
 * The authorization response (RFC 6749 4.1.2 and 4.1.2.1, RFC 9207's `iss`), for the OpenAPI document.
 * Nothing is refused here: the service reads the raw query, and every refusal is a redirect.
 */
const CallbackQuery = z
  .object({ code: Param, state: Param, iss: Param, error: Param, error_description: Param })
  .catchall(Param);

/**
 * OpenID Connect sign-in for users and admins (public): the start, which sends the browser to the
 * provider, and the callback it comes back to. Both answer browsers, so both always redirect: to the
 * provider, to the realm's home, or to its login page with `?error=`. No HEAD routes: a HEAD to the
 * callback would spend a flow, and one to the start would store one for nothing.
 */
export function registerOidcRoutes(app: FastifyInstance, ctx: AppContext, oidc: OidcService): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  for (const realm of OIDC_REALMS) {
    const paths = OIDC_PATHS[realm];
    const cookieName = flowCookieName(realm, ctx.config.insecureHttp);

    routes.get(paths.login, { exposeHeadRoute: false, schema: { querystring: LoginQuery } }, async (request, reply) => {
      const kiosk = realm === 'user' && isTrue(request.query.kioskMode);
      try {
        const started = await oidc.start(realm, kiosk, request.cookies[cookieName], requestMeta(request));
        void reply.setCookie(
          cookieName,
          started.flowCookie,
          flowCookieOptions(ctx.config.insecureHttp, OIDC_FLOW_LIFETIME_MS),
        );
        return await reply.redirect(started.redirect, 302);
      } catch (error) {
        return reply.redirect(loginPageWithError(realm, refusalCode(request, realm, error)), 302);
      }
    });

    routes.get(
      paths.callback,
      { exposeHeadRoute: false, schema: { querystring: CallbackQuery } },
      async (request, reply) => {
        try {
          const outcome = await oidc.finish(
            realm,
            { query: rawQuery(request), flowCookie: request.cookies[cookieName] },
            requestMeta(request),
            sessionToken(ctx, request, realm),
          );
          setSessionCookie(ctx, reply, realm, outcome.token, outcome.kiosk ? null : outcome.endsAt);
          return await reply.redirect(outcome.redirect, 302);
        } catch (error) {
          // The service has logged and audited the reason; the browser learns only the code.
          return reply.redirect(loginPageWithError(realm, refusalCode(request, realm, error)), 302);
        }
      },
    );
  }
}

/** POST /api/admin/settings/oidc/test (admins): the configuration test of oidc-test.ts. */
export function registerOidcAdminRoutes(app: FastifyInstance, ctx: AppContext, oidc: OidcService): void {
  app
    .withTypeProvider<ZodTypeProvider>()
    .post(
      '/api/admin/settings/oidc/test',
      { schema: { body: OidcTestBody, response: { 200: OidcTestResponse } } },
      async (request) => ({ data: await testOidcConfiguration(ctx, request.body.Realm, oidc.metadata) }),
    );
}

/** The code the login page shows for a refused start or callback; anything unforeseen is logged here. */
function refusalCode(request: FastifyRequest, realm: OidcRealm, error: unknown): string {
  if (error instanceof OidcRefusal) {
    request.log.info({ realm, reason: error.reason }, 'OpenID Connect sign-in not completed');
    return error.code;
  }
  request.log.error({ err: error, realm }, 'OpenID Connect sign-in failed');
  return ErrorCodes.authenticationFailed;
}

/** The query string exactly as the browser sent it (the provider's parameters, unparsed). */
function rawQuery(request: FastifyRequest): string {
  const at = request.url.indexOf('?');
  return at < 0 ? '' : request.url.slice(at + 1);
}

function isTrue(value: string | string[] | undefined): boolean {
  return value === 'true' || value === '1';
}
