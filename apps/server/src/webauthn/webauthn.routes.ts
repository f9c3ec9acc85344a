import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  AdminPasswordlessVerifyBody,
  AdminPasswordlessVerifyResponse,
  ApiErrorBody,
  AuthenticationOptionsResponse,
  AuthenticationVerifyBody,
  AuthenticationVerifyResponse,
  EmptyResponse,
  IdParams,
  PasskeyListResponse,
  PasskeyRenameBody,
  PasskeyResponse,
  PasswordlessOptionsResponse,
  PasswordlessVerifyBody,
  PasswordlessVerifyResponse,
  RegistrationOptionsResponse,
  RegistrationVerifyBody,
  RegistrationVerifyResponse,
} from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import {
  requestMeta,
  requireAdmin,
  requireAdminAnyStage,
  requireUser,
  requireUserAnyStage,
  sessionToken,
  setSessionCookie,
} from '../http/request-auth.js';
import type { PasskeyRealm } from './passkeys.repo.js';
import { requestAddress } from './relying-party.js';
import { registrationOptions, verifyRegistration, type PasskeyCaller } from './registration.service.js';
import {
  passwordlessAdminSignIn,
  passwordlessOptions,
  passwordlessUserSignIn,
  secondFactorOptions,
  verifySecondFactor,
} from './passkey-sign-in.service.js';
import { listOwnPasskeys, removeOwnPasskey, renameOwnPasskey } from './passkeys.service.js';

/*
 * Passkeys (packages/protocol/src/webauthn.ts). Every route exists for users under /api/webauthn/…
 * and for administrators under /api/admin/webauthn/…; who may call each is the scope app.ts
 * registers it in: the passwordless sign-in is public, the ceremonies of a sign-in serve a session
 * in any stage, and managing the passkeys needs a signed-in session.
 */

const PREFIX: Record<PasskeyRealm, string> = { user: '/api/webauthn', admin: '/api/admin/webauthn' };

/** The errors a passkey route answers with besides 200 (the document lists them). */
const ERRORS = { 400: ApiErrorBody, 401: ApiErrorBody, 403: ApiErrorBody, 404: ApiErrorBody, 409: ApiErrorBody };

/** The session of the realm behind the request, in any stage, as a passkey caller. */
async function anyStageCaller(ctx: AppContext, request: FastifyRequest, realm: PasskeyRealm): Promise<PasskeyCaller> {
  if (realm === 'user') {
    const { session, user } = await requireUserAnyStage(ctx, request);
    return { realm, account: user, session };
  }
  const { session, admin } = await requireAdminAnyStage(ctx, request);
  return { realm, account: admin, session };
}

/** The signed-in session of the realm behind the request, as a passkey caller. */
async function signedInCaller(ctx: AppContext, request: FastifyRequest, realm: PasskeyRealm): Promise<PasskeyCaller> {
  if (realm === 'user') {
    const { session, user } = await requireUser(ctx, request);
    return { realm, account: user, session };
  }
  const { session, admin } = await requireAdmin(ctx, request);
  return { realm, account: admin, session };
}

/** Sets the cookie of a session a passkey started (a user's kiosk one ends with the browser). */
function setStartedCookie(
  ctx: AppContext,
  reply: FastifyReply,
  realm: PasskeyRealm,
  started: { session: { token: string; endsAt: number }; kiosk: boolean },
): void {
  setSessionCookie(ctx, reply, realm, started.session.token, started.kiosk ? null : started.session.endsAt);
}

/** The public passwordless sign-in of a realm (each protected by its single-use challenge, not a session). */
export function registerPasskeySignInRoutes(app: FastifyInstance, ctx: AppContext, realm: PasskeyRealm): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const prefix = PREFIX[realm];

  routes.post(
    `${prefix}/passwordless/options`,
    { schema: { response: { 200: PasswordlessOptionsResponse, 403: ApiErrorBody } } },
    async (request) => ({ data: await passwordlessOptions(ctx, realm, requestAddress(request)) }),
  );

  if (realm === 'user') {
    routes.post(
      `${prefix}/passwordless/verify`,
      { schema: { body: PasswordlessVerifyBody, response: { 200: PasswordlessVerifyResponse, ...ERRORS } } },
      async (request, reply) => {
        const previous = sessionToken(ctx, request, 'user');
        const started = await passwordlessUserSignIn(ctx, request.body, requestMeta(request), previous);
        setStartedCookie(ctx, reply, 'user', started);
        return { data: started.info };
      },
    );
  } else {
    routes.post(
      `${prefix}/passwordless/verify`,
      { schema: { body: AdminPasswordlessVerifyBody, response: { 200: AdminPasswordlessVerifyResponse, ...ERRORS } } },
      async (request, reply) => {
        const previous = sessionToken(ctx, request, 'admin');
        const started = await passwordlessAdminSignIn(ctx, request.body, requestMeta(request), previous);
        setStartedCookie(ctx, reply, 'admin', started);
        return { data: started.info };
      },
    );
  }
}

/**
 * The ceremonies of a session in any stage: adding a passkey (a sign-in enrolling its second factor,
 * or a recent signed-in session) and passing the second factor with one.
 */
export function registerPasskeyCeremonyRoutes(app: FastifyInstance, ctx: AppContext, realm: PasskeyRealm): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const prefix = PREFIX[realm];

  routes.post(
    `${prefix}/registration/options`,
    { schema: { response: { 200: RegistrationOptionsResponse, ...ERRORS } } },
    async (request) => ({
      data: await registrationOptions(ctx, await anyStageCaller(ctx, request, realm), requestAddress(request)),
    }),
  );

  routes.post(
    `${prefix}/registration/verify`,
    { schema: { body: RegistrationVerifyBody, response: { 200: RegistrationVerifyResponse, ...ERRORS } } },
    async (request, reply) => {
      const caller = await anyStageCaller(ctx, request, realm);
      const registered = await verifyRegistration(ctx, caller, request.body, requestMeta(request));
      if (registered.session !== null) {
        setStartedCookie(ctx, reply, realm, { session: registered.session, kiosk: registered.kiosk });
      }
      return { data: { Outcome: registered.outcome, Passkey: registered.passkey } };
    },
  );

  routes.post(
    `${prefix}/authentication/options`,
    { schema: { response: { 200: AuthenticationOptionsResponse, ...ERRORS } } },
    async (request) => ({
      data: await secondFactorOptions(ctx, await anyStageCaller(ctx, request, realm), requestAddress(request)),
    }),
  );

  routes.post(
    `${prefix}/authentication/verify`,
    { schema: { body: AuthenticationVerifyBody, response: { 200: AuthenticationVerifyResponse, ...ERRORS } } },
    async (request, reply) => {
      const caller = await anyStageCaller(ctx, request, realm);
      const started = await verifySecondFactor(ctx, caller, request.body, requestMeta(request));
      setStartedCookie(ctx, reply, realm, started);
      return { data: { Outcome: 'SignedIn' as const } };
    },
  );
}

/** A signed-in session's own passkeys: the list, a new name, a removal. */
export function registerPasskeyCredentialRoutes(app: FastifyInstance, ctx: AppContext, realm: PasskeyRealm): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const prefix = PREFIX[realm];

  routes.get(
    `${prefix}/credentials`,
    { schema: { response: { 200: PasskeyListResponse, 403: ApiErrorBody } } },
    async (request) => ({ data: await listOwnPasskeys(ctx, await signedInCaller(ctx, request, realm)) }),
  );

  routes.put(
    `${prefix}/credentials/:id`,
    { schema: { params: IdParams, body: PasskeyRenameBody, response: { 200: PasskeyResponse, ...ERRORS } } },
    async (request) => {
      const caller = await signedInCaller(ctx, request, realm);
      const { id } = request.params;
      return { data: await renameOwnPasskey(ctx, caller, id, request.body.Name, requestMeta(request)) };
    },
  );

  routes.delete(
    `${prefix}/credentials/:id`,
    { schema: { params: IdParams, response: { 200: EmptyResponse, ...ERRORS } } },
    async (request) => {
      const caller = await signedInCaller(ctx, request, realm);
      await removeOwnPasskey(ctx, caller, request.params.id, requestMeta(request));
      return { data: null };
    },
  );
}
