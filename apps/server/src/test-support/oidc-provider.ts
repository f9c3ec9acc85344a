import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync, sign, type JsonWebKey, type KeyObject } from 'node:crypto';
import Provider, { type ProviderContext } from 'oidc-provider';

/**
 * A real OpenID Connect provider (oidc-provider, the certified implementation) on a loopback port in
 * the test's own process, for the sign-in tests: fixed accounts with fixed claims, the clients the
 * test registers, PKCE required, RP-initiated logout on. Its login is no form: `signIn` drives the
 * browser's way through it with plain fetch (the authorization request, the interaction, the redirect
 * back) and answers the callback URL the provider sends the browser to.
 *
 * For the refusals the provider would never produce by itself, the token endpoint's ID token can be
 * rewritten (`editIdToken`) and re-signed with the provider's key, with a key it does not publish, or
 * with a new key it publishes beside the old one (a rotation).
 */

/** A person at the provider: `sub` is their account id; `claims` what the provider says of them. */
export interface TestOidcAccount {
  sub: string;
  claims: Record<string, unknown>;
}

export interface TestOidcClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  postLogoutRedirectUris?: string[];
}

export interface TestOidcProviderOptions {
  clients: TestOidcClient[];
  accounts: TestOidcAccount[];
}

/** Which key signs a rewritten ID token (see TestOidcProvider.signingKey). */
export type TestSigningKey = 'provider' | 'unpublished' | 'rotated';

interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  publicJwk: JsonWebKey;
}

function rsaKey(kid: string): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { kid, privateKey, publicJwk: { ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' } };
}

function base64urlJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

/** A JWT of these claims, signed RS256 with `key`. */
function signJwt(claims: Record<string, unknown>, key: SigningKey): string {
  const input = `${base64urlJson({ alg: 'RS256', typ: 'JWT', kid: key.kid })}.${base64urlJson(claims)}`;
  return `${input}.${sign('sha256', Buffer.from(input), key.privateKey).toString('base64url')}`;
}

/** A minimal login page: one field naming the account (`sub`) and a button, sent with GET to `<path>/login`. */
function loginPage(interactionPath: string): string {
  return `<!doctype html><html lang="en"><head><title>Test provider sign-in</title></head><body>
<form method="get" action="${interactionPath}/login"><label>Account <input name="account" autocomplete="off"></label>
<button type="submit">Sign in at the provider</button></form></body></html>`;
}

export class TestOidcProvider {
  /** The issuer identifier: `http://127.0.0.1:<port>`. */
  readonly issuer: string;
  /** Edits the claims of each ID token the token endpoint issues, which is then re-signed; null: as issued. */
  editIdToken: ((claims: Record<string, unknown>) => Record<string, unknown>) | null = null;
  /**
   * The key a rewritten ID token is signed with: the provider's own, one with the same key id that it
   * does not publish, or a new key (new key id) that its key set publishes beside the old one.
   */
  signingKey: TestSigningKey = 'provider';
  /** Requests the provider received, by path (a test can see the key set was fetched again). */
  readonly requests: string[] = [];

  readonly #accounts = new Map<string, TestOidcAccount>();

  private constructor(
    private readonly server: Server,
    private readonly keys: Record<TestSigningKey, SigningKey>,
    issuer: string,
    accounts: TestOidcAccount[],
  ) {
    this.issuer = issuer;
    for (const account of accounts) this.#accounts.set(account.sub, account);
  }

  static async start(options: TestOidcProviderOptions): Promise<TestOidcProvider> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const own = rsaKey('key-1');
    const keys: Record<TestSigningKey, SigningKey> = {
      provider: own,
      // The same key id as the provider's own, so only the signature tells them apart.
      unpublished: rsaKey('key-1'),
      rotated: rsaKey('key-2'),
    };
    const provider = new TestOidcProvider(server, keys, issuer, options.accounts);
    provider.#serve(
      new Provider(issuer, {
        clients: options.clients.map((c) => ({
          client_id: c.clientId,
          client_secret: c.clientSecret,
          redirect_uris: c.redirectUris,
          post_logout_redirect_uris: c.postLogoutRedirectUris ?? [],
          grant_types: ['authorization_code'],
          response_types: ['code'],
        })),
        jwks: { keys: [{ ...own.privateKey.export({ format: 'jwk' }), kid: own.kid, alg: 'RS256', use: 'sig' }] },
        cookies: { keys: ['test-provider-cookie-key'] },
        claims: {
          openid: ['sub'],
          profile: ['name', 'given_name', 'family_name', 'preferred_username', 'upn'],
          email: ['email'],
          groups: ['groups'],
        },
        scopes: ['openid', 'profile', 'email', 'groups'],
        pkce: { required: () => true },
        features: { devInteractions: { enabled: false }, rpInitiatedLogout: { enabled: true } },
        interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
        ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 3600, IdToken: 600, Interaction: 600, Session: 3600 },
        findAccount: (_ctx: unknown, sub: string) => {
          const account = provider.#accounts.get(sub);
          return account === undefined ? undefined : { accountId: sub, claims: () => ({ ...account.claims, sub }) };
        },
        // A first-party client: what it asks for is granted without a consent page.
        loadExistingGrant: async (ctx: ProviderContext) => {
          const grant = new ctx.oidc.provider.Grant({
            accountId: ctx.oidc.session?.accountId,
            clientId: ctx.oidc.client?.clientId,
          });
          const scope = ctx.oidc.params?.scope;
          grant.addOIDCScope(typeof scope === 'string' ? scope : 'openid');
          await grant.save();
          return grant;
        },
      }),
    );
    return provider;
  }

  /** Adds or changes a person at the provider. */
  setAccount(account: TestOidcAccount): void {
    this.#accounts.set(account.sub, account);
  }

  /**
   * Signs `sub` in at the provider for the authorization request `authorizationUrl` (where Postern's
   * login sent the browser), and answers the URL the provider then sends the browser to: the client's
   * redirect URI with `code`, `state` and `iss` (or `error`).
   */
  async signIn(authorizationUrl: string, sub: string): Promise<URL> {
    const jar = new Map<string, string>();
    const go = async (url: string) => {
      const response = await fetch(url, {
        redirect: 'manual',
        headers: { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; ') },
      });
      for (const cookie of response.headers.getSetCookie()) {
        const [pair = ''] = cookie.split(';');
        const at = pair.indexOf('=');
        jar.set(pair.slice(0, at), pair.slice(at + 1));
      }
      await response.body?.cancel();
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || location === null) {
        throw new Error(`the provider answered ${response.status} at ${url}`);
      }
      return new URL(location, url);
    };
    let next = await go(authorizationUrl);
    for (let step = 0; step < 6; step += 1) {
      if (next.origin !== this.issuer) return next;
      next = /^\/interaction\/[^/]+$/.test(next.pathname)
        ? await go(`${next.href}/login?account=${encodeURIComponent(sub)}`)
        : await go(next.href);
    }
    throw new Error('the provider never sent the browser back');
  }

  /** Stops the provider: from now on it refuses connections, like a provider that is down. */
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  #serve(provider: Provider): void {
    provider.use(async (ctx, next) => {
      this.requests.push(ctx.path);
      await next();
      if (ctx.path === '/token' && this.editIdToken !== null) this.#rewriteTokenResponse(ctx);
      if (ctx.path === '/jwks' && this.signingKey === 'rotated') {
        ctx.body = { keys: [this.keys.provider.publicJwk, this.keys.rotated.publicJwk] };
      }
    });
    const handle = provider.callback();
    this.server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      const url = new URL(request.url ?? '/', this.issuer);
      const login = /^\/interaction\/[^/]+\/login$/.exec(url.pathname);
      if (login !== null) {
        // The person "signs in": the interaction ends with their account, and the provider redirects on.
        const result = { login: { accountId: url.searchParams.get('account') ?? '' } };
        provider.interactionFinished(request, response, result, { mergeWithLastSubmission: false }).catch(() => {
          response.writeHead(500).end();
        });
        return;
      }
      if (/^\/interaction\/[\w-]+$/.test(url.pathname)) {
        // The login page, for a real browser (the path is word characters only, safe in the HTML).
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(loginPage(url.pathname));
        return;
      }
      handle(request, response);
    });
  }

  #rewriteTokenResponse(ctx: ProviderContext): void {
    const body = ctx.body as { id_token?: unknown } | null;
    if (body === null || typeof body !== 'object' || typeof body.id_token !== 'string') return;
    const [, payload = ''] = body.id_token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const edit = this.editIdToken ?? ((same: Record<string, unknown>) => same);
    ctx.body = { ...body, id_token: signJwt(edit(claims), this.keys[this.signingKey]) };
  }
}
