import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorCodes } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { ApiError, NotFoundError } from '../errors.js';
import { requestMeta, sessionToken, setSessionCookie } from '../http/request-auth.js';
import type { SamlRealm } from '../settings/settings.service.js';
import { loginPageWithError, SAML_PATHS } from './saml-endpoints.js';
import { SamlRefusal } from './saml-signin.js';
import { SamlService, type AcsForm } from './saml.service.js';

/**
 * A posted SAMLResponse is a few kilobytes (tens with many groups and a certificate or two); anything
 * beyond this is refused before it is parsed.
 */
const ACS_BODY_LIMIT_BYTES = 256 * 1024;
const REALMS: readonly SamlRealm[] = ['user', 'admin'];

/**
 * The login's query: on the user realm, `kioskMode=true` (or `1`) starts a kiosk sign-in. Any other
 * value, or the parameter given twice, is simply not kiosk mode: this route answers browsers with
 * redirects, so it refuses nothing here.
 */
const SamlLoginQuery = z.object({ kioskMode: z.union([z.string(), z.array(z.string())]).optional() });

/**
 * SAML single sign-on for users and admins: SP metadata, the redirect to the IdP, and the assertion
 * consumer services. The login and ACS routes answer browsers, so they always redirect (to the
 * realm's home, or to its login page with `?error=`); only the metadata routes answer with a status.
 */
export function registerSamlRoutes(app: FastifyInstance, ctx: AppContext): void {
  const saml = new SamlService(ctx);

  for (const realm of REALMS) {
    const paths = SAML_PATHS[realm];

    app.get(paths.metadata, async (_request, reply) => {
      const xml = await saml.serviceProviderMetadata(realm);
      if (xml === null) throw new NotFoundError({ code: ErrorCodes.samlNotConfigured });
      return reply.type('application/samlmetadata+xml; charset=utf-8').send(xml);
    });

    const schema = { querystring: SamlLoginQuery };
    app.withTypeProvider<ZodTypeProvider>().get(paths.login, { schema }, async (request, reply) => {
      const kiosk = realm === 'user' && isTrue(request.query.kioskMode);
      try {
        return reply.redirect(await saml.loginRedirect(realm, kiosk), 302);
      } catch (error) {
        if (!(error instanceof SamlRefusal)) throw error;
        request.log.info({ realm, reason: error.reason }, 'SAML login not started');
        return reply.redirect(loginPageWithError(realm, error.code), 302);
      }
    });
  }

  // The ACS routes get their own scope: the IdP posts an HTML form, so they (and only they) parse
  // application/x-www-form-urlencoded, with a tighter size limit; and every error there, even a body
  // Fastify refuses, becomes a redirect to the login page instead of a JSON answer.
  void app.register((scope, _options, done) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: ACS_BODY_LIMIT_BYTES },
      (_request, body, parsed) => parsed(null, body),
    );
    scope.setErrorHandler((error, request, reply) => {
      const realm = request.routeOptions.url === SAML_PATHS.admin.acs ? 'admin' : 'user';
      request.log.info({ realm, err: error }, 'SAML response refused before validation');
      // A request rule's refusal (a non-canonical path, a foreign Origin) keeps its own code.
      const code = error instanceof ApiError ? error.code : ErrorCodes.authenticationFailed;
      void reply.redirect(loginPageWithError(realm, code), 302);
    });
    for (const realm of REALMS) {
      // Posted cross-site by the identity provider; the signed response, not the Origin, protects it.
      const config = { crossSitePost: true } as const;
      scope.post(SAML_PATHS[realm].acs, { bodyLimit: ACS_BODY_LIMIT_BYTES, config }, (request, reply) =>
        consume(saml, ctx, realm, request, reply),
      );
    }
    done();
  });
}

async function consume(
  saml: SamlService,
  ctx: AppContext,
  realm: SamlRealm,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  try {
    const outcome = await saml.consume(
      realm,
      readForm(request.body),
      requestMeta(request),
      sessionToken(ctx, request, realm),
    );
    setSessionCookie(ctx, reply, outcome.realm, outcome.token, outcome.kiosk ? null : outcome.endsAt);
    return reply.redirect(outcome.redirect, 302);
  } catch (error) {
    // The service has logged and audited the reason; the browser learns only the code.
    const code = error instanceof SamlRefusal ? error.code : ErrorCodes.authenticationFailed;
    if (!(error instanceof SamlRefusal)) request.log.error({ err: error, realm }, 'SAML sign-in failed');
    return reply.redirect(loginPageWithError(realm, code), 302);
  }
}

/** The two fields of the IdP's form; anything else in it is ignored. Repeated fields are refused. */
function readForm(body: unknown): AcsForm {
  const fields = new URLSearchParams(typeof body === 'string' ? body : '');
  const single = (name: string) => {
    const values = fields.getAll(name);
    return values.length === 1 ? values[0] : undefined;
  };
  return { SAMLResponse: single('SAMLResponse'), RelayState: single('RelayState') };
}

function isTrue(value: string | string[] | undefined): boolean {
  return value === 'true' || value === '1';
}
