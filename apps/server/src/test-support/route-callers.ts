import type { AppContext } from '../app-context.js';
import type { SessionStage } from '../store/schema.js';
import type { RouteAccess, RouteTableEntry } from '../http/route-access.js';
import { sessionCookieName } from '../http/cookies.js';
import { newSessionToken } from '../sessions/session-tokens.js';
import { insertAdminSession, insertUserSession, type NewSessionFields } from '../sessions/sessions.repo.js';
import { uuidv7 } from '../lib/ids.js';
import { givenAdmin, givenUser } from './factories.js';
import { givenAgent } from './agent-factories.js';
import { basicAuth, givenAllowlistKnoc, givenApiKey } from './v1-rows.js';

/** The kinds of caller a route may meet, each with what it would present. */
export const CALLER_KINDS = [
  'none',
  'user',
  'user-waiting-for-code',
  'admin',
  'admin-waiting-for-code',
  'user-token-as-admin',
  'admin-token-as-user',
  'api-key',
  'agent-token',
] as const;
export type CallerKind = (typeof CALLER_KINDS)[number];

/** Which callers each kind of route is for; every other caller must be refused with 401 or 403. */
export const INTENDED_CALLERS: Record<RouteAccess, readonly CallerKind[]> = {
  public: CALLER_KINDS,
  user: ['user'],
  'user-any-stage': ['user', 'user-waiting-for-code'],
  admin: ['admin'],
  'admin-any-stage': ['admin', 'admin-waiting-for-code'],
  'api-key': ['api-key'],
  agent: ['agent-token'],
};

/** A documentation address (RFC 5737) the callers come from. */
export const CALLER_ADDRESS = '198.51.100.23';

/**
 * A world in which every kind of caller exists: a user and an admin (sessions are made fresh for each
 * call, straight in the store, so a route that ends sessions cannot spoil the next), an API key that
 * may read an allowlist and the sessions API and sign in as an API-key user, and an agent with its
 * token.
 */
export class RouteCallers {
  private constructor(
    private readonly ctx: AppContext,
    private readonly userId: string,
    private readonly adminId: string,
    private readonly apiKey: string,
    private readonly agentToken: string,
    /** Values for the route parameters that must name something real for the route to go further. */
    readonly params: Record<string, string>,
  ) {}

  static async create(ctx: AppContext): Promise<RouteCallers> {
    const user = await givenUser(ctx);
    const admin = await givenAdmin(ctx);
    const list = await givenAllowlistKnoc(ctx);
    const machine = await givenUser(ctx, { authType: 'apikey', passwordHash: null });
    const key = await givenApiKey(ctx, [`allowlist.read:${list.id}`, 'user.sessions', `user.auth:${machine.id}`]);
    const agent = await givenAgent(ctx);
    return new RouteCallers(ctx, user.id, admin.id, key.plaintext, agent.token, {
      aclId: list.id,
      token: list.token,
      variant: 'dark',
    });
  }

  /** The headers `kind` sends; session kinds get a new session every call. */
  async headers(kind: CallerKind): Promise<Record<string, string>> {
    const userCookie = (token: string) => sessionCookieName('user', false) + '=' + token;
    const adminCookie = (token: string) => sessionCookieName('admin', false) + '=' + token;
    switch (kind) {
      case 'none':
        return {};
      case 'user':
        return { cookie: userCookie(await this.#userSession('active')) };
      case 'user-waiting-for-code':
        return { cookie: userCookie(await this.#userSession('totp')) };
      case 'admin':
        return { cookie: adminCookie(await this.#adminSession('active')) };
      case 'admin-waiting-for-code':
        return { cookie: adminCookie(await this.#adminSession('totp')) };
      case 'user-token-as-admin':
        return { cookie: adminCookie(await this.#userSession('active')) };
      case 'admin-token-as-user':
        return { cookie: userCookie(await this.#adminSession('active')) };
      case 'api-key':
        return { authorization: basicAuth('apiuser', this.apiKey) };
      case 'agent-token':
        return { authorization: `Bearer ${this.agentToken}` };
    }
  }

  async #userSession(stage: SessionStage): Promise<string> {
    const { token, session } = this.#newSession(stage);
    await insertUserSession(this.ctx.db, { ...session, userId: this.userId, kiosk: false });
    return token;
  }

  async #adminSession(stage: SessionStage): Promise<string> {
    const { token, session } = this.#newSession(stage);
    await insertAdminSession(this.ctx.db, { ...session, adminId: this.adminId });
    return token;
  }

  /** A running session's fields and the token for its cookie. */
  #newSession(stage: SessionStage): { token: string; session: NewSessionFields } {
    const { token, tokenHash } = newSessionToken();
    const now = this.ctx.clock.now();
    const session = {
      id: uuidv7(now),
      tokenHash,
      createdAt: now,
      endsAt: now + 3_600_000,
      ipAddress: CALLER_ADDRESS,
      userAgent: 'route-table test',
      stage,
    };
    return { token, session };
  }
}

/**
 * A concrete path for a route: each `:name` parameter from `params` (a fresh id otherwise), and a
 * wildcard as `wildcard`.
 */
export function concretePath(route: RouteTableEntry, params: Record<string, string>, wildcard = 'x'): string {
  return route.url
    .replace(/:([A-Za-z0-9_]+)/g, (_match, name: string) => params[name] ?? uuidv7(Date.now()))
    .replace(/\*$/, wildcard);
}

/**
 * Other spellings of the same path that a router decoding percent-escapes would match to the same
 * route: an unreserved letter escaped in the first segment and in the last one, and an empty segment.
 */
export function otherSpellings(path: string): string[] {
  const escapeFirstLetter = (segment: string) => {
    const index = segment.search(/[a-z]/i);
    if (index === -1) return null;
    const code = segment.charCodeAt(index).toString(16).toUpperCase();
    return `${segment.slice(0, index)}%${code}${segment.slice(index + 1)}`;
  };
  const segments = path.split('/');
  const spellings: string[] = [];
  for (const position of [1, segments.length - 1]) {
    const escaped = escapeFirstLetter(segments[position] ?? '');
    if (escaped !== null) spellings.push(segments.map((s, i) => (i === position ? escaped : s)).join('/'));
  }
  spellings.push(path.replace(/^\/([^/]+)\//, '/$1//'));
  return [...new Set(spellings)].filter((spelling) => spelling !== path);
}

/** The route as messages name it: its method and path pattern. */
export function describeRoute(route: RouteTableEntry): string {
  return `${route.method} ${route.url}`;
}
