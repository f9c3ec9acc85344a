import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import type { AppContext } from '../app-context.js';
import { requireAdmin, requireAdminAnyStage, requireUser, requireUserAnyStage } from './request-auth.js';

/**
 * Who may call a route. Every route belongs to exactly one kind, given by the scope it is registered
 * in (see {@link registerAccessScope}); nothing decides it from the request's URL text, so no
 * spelling of a path can reach a route without passing its scope's check.
 */
export type RouteAccess =
  /** Anyone: sign-in and sign-out, theme, system status, SAML, the agent installer, the web app. */
  | 'public'
  /** A fully signed-in user. */
  | 'user'
  /** A user's session in any stage, signed in or waiting for its second factor (the user OTP API). */
  | 'user-any-stage'
  /** A fully signed-in administrator. */
  | 'admin'
  /** An administrator's session in any stage (the admin OTP API, GET /api/admin/session). */
  | 'admin-any-stage'
  /** Machines with an API key (or, for allowlists, an allowed address); the route checks it itself. */
  | 'api-key'
  /** An agent's WebSocket; the route checks the agent's credentials itself. */
  | 'agent';

/**
 * The check a scope runs in onRequest for each of its routes: before the body is read or validated,
 * so a caller who may not use a route learns nothing but 401 (not which fields were wrong).
 * Credentials the route checks itself ('api-key', 'agent') have no session check here.
 */
const SCOPE_CHECKS: Record<RouteAccess, ((ctx: AppContext, request: FastifyRequest) => Promise<unknown>) | null> = {
  public: null,
  user: requireUser,
  'user-any-stage': requireUserAnyStage,
  admin: requireAdmin,
  'admin-any-stage': requireAdminAnyStage,
  'api-key': null,
  agent: null,
};

/** Route-level options that relax a request rule; set in a route's `config`. */
export interface RouteRules {
  /**
   * The route receives a legitimate cross-site form POST (the SAML assertion consumers, posted by
   * the identity provider); what protects it is the signed response it carries, not the Origin.
   */
  crossSitePost?: true;
}

declare module 'fastify' {
  interface FastifyContextConfig extends RouteRules {
    /** Set by the scope the route is registered in; never written by hand. */
    access?: RouteAccess;
  }
}

/** One entry of the server's route table, as the route-table tests walk it. */
export interface RouteTableEntry {
  method: string;
  url: string;
  access: RouteAccess;
  crossSitePost: boolean;
}

const routeTables = new WeakMap<FastifyInstance, RouteOptions[]>();

/**
 * Starts recording every route the app registers, and makes the app refuse to start when a route
 * was registered outside an access scope: a route nobody classified must not be served.
 */
export function recordRouteTable(app: FastifyInstance): void {
  const routes: RouteOptions[] = [];
  routeTables.set(app, routes);
  app.addHook('onRoute', (route) => {
    routes.push(route);
  });
  app.addHook('onReady', (done) => {
    const unscoped = routes.filter((route) => route.config?.access === undefined);
    const names = unscoped.map((route) => `${String(route.method)} ${route.url}`).join(', ');
    done(unscoped.length === 0 ? undefined : new Error(`routes registered outside an access scope: ${names}`));
  });
}

/** Every route of the app, with who may call it; available once the app is ready. */
export function routeTable(app: FastifyInstance): RouteTableEntry[] {
  const routes = routeTables.get(app);
  if (routes === undefined) throw new Error('this app does not record its route table');
  return routes.flatMap((route) =>
    (Array.isArray(route.method) ? route.method : [route.method]).map((method) => ({
      method,
      url: route.url,
      access: route.config?.access ?? 'public',
      crossSitePost: route.config?.crossSitePost === true,
    })),
  );
}

/**
 * Registers routes in an encapsulated scope whose every route gets `access`: the scope stamps the
 * route's config with it and runs the matching check before anything else the route does.
 */
export async function registerAccessScope(
  app: FastifyInstance,
  ctx: AppContext,
  access: RouteAccess,
  register: (scope: FastifyInstance) => void | Promise<void>,
): Promise<void> {
  await app.register(async (scope) => {
    scope.addHook('onRoute', (route) => {
      route.config = { ...route.config, access };
    });
    const check = SCOPE_CHECKS[access];
    if (check !== null) {
      scope.addHook('onRequest', async (request) => {
        await check(ctx, request);
      });
    }
    await register(scope);
  });
}
