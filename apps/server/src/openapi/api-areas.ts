import type { FastifyInstance } from 'fastify';

/**
 * The areas of the API, each the OpenAPI tag of its routes (in this order in the document). A route
 * gets its area from where app.ts registers it ({@link registerArea}), not from its URL text.
 */
export const API_AREAS = {
  'Sign-in': 'Signing in and out with a password, for users and administrators.',
  SAML: 'SAML single sign-on: service provider metadata, the redirect to the identity provider, the assertion consumers.',
  'OpenID Connect':
    'OpenID Connect sign-in: the redirect to the provider, the callbacks, and the test of a realm’s provider settings.',
  'Second factor': 'Enrolling and checking the TOTP second factor of a sign-in.',
  Passkeys:
    'Passkeys (WebAuthn): adding one, passing the second factor or signing in with one, and managing them, for users and administrators.',
  Status: 'The theme, the system status and the signed-in person’s status.',
  Branding: 'The uploaded logos the sign-in pages show.',
  Grants: 'A user granting and revoking their own access to knocs.',
  Password: 'A user changing their own password.',
  Language: 'The signed-in person keeping their language choice on the server.',
  'Admin session': 'The administrator behind the session cookie.',
  Sessions: 'Administrators ending user and administrator sessions.',
  Users: 'The user directory.',
  Administrators: 'The administrators.',
  Licence: 'The licence status and installing a licence key.',
  Groups: 'User groups.',
  'API keys': 'API keys for the /api/v1 machine API.',
  'Audit log': 'Reading and clearing the audit log.',
  Settings: 'Configuration, customisation, authentication and SAML keys.',
  Backends: 'Backends: the firewalls, security groups and scripts that enforce grants.',
  Knocs: 'Knocs (ACLs): what users may open, on which backend, for how long.',
  'Break-glass grants': 'An administrator’s audited grant on a knoc, and its early end.',
  'Knoc tests': 'Test this knoc: a one-minute grant through the knoc’s agent, its read-back and the early revoke.',
  Agents: 'The agents that apply grants on hosts and firewalls.',
  'Agent installation': 'The agent install script and bundle.',
  'Agent connection': 'The WebSocket agents connect to.',
  Allowlists: 'Published allowlists that firewalls poll.',
  'User sessions (v1)': 'The running user sessions, for monitoring.',
  'Machine sign-in (v1)':
    'Scripts and servers signing in with an API key scoped user.auth:{user ID} (postern-client); then the user API.',
  Documentation: 'The documentation shipped with Postern, and this OpenAPI document.',
  Health: 'Liveness and readiness, for load balancers and service managers.',
  'Web app': 'The browser application’s pages and files.',
} as const;

export type ApiArea = keyof typeof API_AREAS;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The API area (OpenAPI tag) of the route; set by {@link registerArea}, never by hand. */
    area?: ApiArea;
  }
}

/**
 * Registers one area's routes in a child of `scope` (so they keep its access rule) that stamps each
 * route with the area, which the OpenAPI document shows as the operation's tag.
 */
export async function registerArea(
  scope: FastifyInstance,
  area: ApiArea,
  register: (areaScope: FastifyInstance) => void | Promise<void>,
): Promise<void> {
  await scope.register(async (areaScope) => {
    areaScope.addHook('onRoute', (route) => {
      route.config = { ...route.config, area };
    });
    await register(areaScope);
  });
}
