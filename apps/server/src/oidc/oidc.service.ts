import { randomBytes } from 'node:crypto';
import * as client from 'openid-client';
import { AuditActions, ErrorCodes, type ErrorCode, type OidcRealm } from '@postern/protocol';
import type { AppContext, RequestMeta } from '../app-context.js';
import { recordAudit } from '../audit/audit.js';
import { readSettings, type Settings } from '../settings/settings.js';
import { SecretUnreadableError } from '../secrets/secret-box.js';
import { reportUnreadableSecret } from '../secrets/unreadable-secrets.js';
import { userHome } from '../saml/saml-endpoints.js';
import {
  describeClientError,
  isProviderOutage,
  oidcClient,
  ProviderMetadataError,
  ProviderUnreachableError,
} from './oidc-client.js';
import { OidcMetadataSource, SharedMetadataFailure } from './oidc-metadata-source.js';
import {
  oidcConfigured,
  oidcRealmSettings,
  openClientSecret,
  providerName,
  type OidcRealmSettings,
} from './oidc-settings.js';
import { hashOf, OIDC_FLOW_LIFETIME_MS, pkceVerifier, saveFlow, takeFlow, type OidcFlow } from './oidc-flows.js';
import { displayNameClaim, groupsClaim, mergedClaims, userNameClaim, type Claims } from './oidc-claims.js';
import { OidcRefusal, signInOidcAdmin, signInOidcUser, type OidcIdentity, type OidcSession } from './oidc-signin.js';
import { rememberSignOut } from './oidc-sign-outs.js';
import { postLogoutRedirectUri } from './oidc-endpoints.js';

/** Longest reason kept in an audit entry. */
const MAX_REASON_LENGTH = 300;
/** Where an admin lands after signing in (as with SAML). */
const ADMIN_HOME = '/admin/home';
/** A flow cookie as this module makes them: 32 random bytes, base64url. */
const FLOW_COOKIE = /^[A-Za-z0-9_-]{43}$/;

/** Where a started sign-in sends the browser, and the flow cookie it must carry back. */
export interface OidcStart {
  redirect: string;
  flowCookie: string;
}

/** A finished sign-in: the realm's session cookie, and the page the browser goes to. */
export interface OidcSuccess extends OidcSession {
  realm: OidcRealm;
  /** A kiosk session's cookie dies with the browser. */
  kiosk: boolean;
  redirect: string;
}

/** What the callback received: its query string as the provider sent it, and the flow cookie. */
export interface OidcCallback {
  query: string;
  flowCookie: string | undefined;
}

/**
 * OpenID Connect sign-in for both realms, each with its own provider and client: the authorization
 * code flow with PKCE (S256), `state` and `nonce`. Everything a flow needs between its start and its
 * callback is in the store (oidc-flows.ts), so any replica finishes it, once. One instance per app:
 * it holds only the per-process metadata cache.
 */
export class OidcService {
  readonly metadata: OidcMetadataSource;

  constructor(private readonly ctx: AppContext) {
    this.metadata = new OidcMetadataSource(ctx.clock);
  }

  /**
   * Starts a sign-in: the provider's authorization URL and the flow cookie (the one the browser brought,
   * or a new one). Throws OidcRefusal when the realm is not configured or the provider is unavailable.
   */
  async start(
    realm: OidcRealm,
    kiosk: boolean,
    presentedCookie: string | undefined,
    meta: RequestMeta,
  ): Promise<OidcStart> {
    const settings = await readSettings(this.ctx.db);
    const r = oidcRealmSettings(settings, realm);
    if (!oidcConfigured(settings, realm)) {
      throw new OidcRefusal(ErrorCodes.oidcNotConfigured, `OpenID Connect is not configured for ${realm}s`);
    }
    const secret = await this.#clientSecret(r);
    let metadata;
    try {
      metadata = await this.metadata.load(r);
    } catch (error) {
      const refusal = unavailable(error);
      // Only the request that read the metadata reports it; the others share its (cached) failure.
      if (!(error instanceof SharedMetadataFailure)) await this.#recordFailure(r, refusal, meta);
      throw refusal;
    }
    const flowCookie =
      presentedCookie !== undefined && FLOW_COOKIE.test(presentedCookie) ? presentedCookie : newFlowCookie();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const now = this.ctx.clock.now();
    const flow: OidcFlow = {
      realm,
      nonce,
      browserHash: hashOf(flowCookie),
      kiosk: realm === 'user' && kiosk,
      createdAt: now,
      expiresAt: now + OIDC_FLOW_LIFETIME_MS,
    };
    await saveFlow(this.ctx.db, state, flow);
    const config = oidcClient(this.ctx, metadata, r, secret);
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: r.redirectUri,
      scope: r.scopes.join(' '),
      state,
      nonce,
      code_challenge: await client.calculatePKCECodeChallenge(pkceVerifier(this.ctx.secrets, state)),
      code_challenge_method: 'S256',
    });
    return { redirect: url.href, flowCookie };
  }

  /**
   * Finishes a sign-in at the realm's callback and starts its session. Throws OidcRefusal for anything
   * refused, after logging, counting and auditing why; the caller only redirects.
   */
  async finish(
    realm: OidcRealm,
    callback: OidcCallback,
    meta: RequestMeta,
    previousToken: string | undefined,
  ): Promise<OidcSuccess> {
    const settings = await readSettings(this.ctx.db);
    const r = oidcRealmSettings(settings, realm);
    try {
      const success = await this.#finish(settings, r, callback, meta, previousToken);
      this.ctx.metrics.signIn('oidc', 'success');
      return success;
    } catch (error) {
      this.ctx.metrics.signIn('oidc', 'failure');
      const refusal = asRefusal(error);
      if (!(error instanceof OidcRefusal))
        this.ctx.logger.error({ err: error, realm }, 'OpenID Connect sign-in failed');
      await this.#recordFailure(r, refusal, meta);
      throw refusal;
    }
  }

  async #finish(
    settings: Settings,
    r: OidcRealmSettings,
    callback: OidcCallback,
    meta: RequestMeta,
    previousToken: string | undefined,
  ): Promise<OidcSuccess> {
    const params = new URLSearchParams(callback.query);
    const states = params.getAll('state');
    const state = states[0];
    if (states.length !== 1 || state === undefined || state === '')
      throw refuse('the callback carries no single state');
    // Spent whatever follows: a state is good for one callback only, on any replica.
    const flow = await takeFlow(this.ctx.db, state, r.realm, this.ctx.clock.now());
    if (flow === null) throw refuse('the state is unknown, expired or already used');
    if (callback.flowCookie === undefined || hashOf(callback.flowCookie) !== flow.browserHash) {
      throw refuse('the sign-in was started in another browser (the flow cookie does not match)');
    }
    if (!oidcConfigured(settings, r.realm)) {
      throw new OidcRefusal(ErrorCodes.oidcNotConfigured, `OpenID Connect is not configured for ${r.realm}s`);
    }
    const secret = await this.#clientSecret(r);
    let metadata;
    try {
      metadata = await this.metadata.load(r);
    } catch (error) {
      throw unavailable(error);
    }
    const config = oidcClient(this.ctx, metadata, r, secret);
    const currentUrl = new URL(r.redirectUri);
    currentUrl.search = callback.query;

    let tokens;
    let userinfo: Claims | null = null;
    try {
      tokens = await client.authorizationCodeGrant(config, currentUrl, {
        pkceCodeVerifier: pkceVerifier(this.ctx.secrets, state),
        expectedState: state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
      const idClaims = tokens.claims();
      if (idClaims === undefined) throw refuse('the token response has no ID token');
      if (metadata.userinfo_endpoint !== undefined) {
        // Many providers put profile and group claims only here; the subject must be the ID token's.
        userinfo = await client.fetchUserInfo(config, tokens.access_token, idClaims.sub);
      }
    } catch (error) {
      if (error instanceof OidcRefusal) throw error;
      if (isProviderOutage(error)) {
        throw new OidcRefusal(
          ErrorCodes.oidcProviderUnavailable,
          `the provider is unavailable: ${describeClientError(error)}`,
        );
      }
      throw refuse(`the provider's answer was refused: ${describeClientError(error)}`);
    }
    const idClaims = tokens.claims() as Claims & { iss: string; sub: string };
    const identity = this.#identity(r, mergedClaims(idClaims, userinfo), idClaims);
    const session =
      r.realm === 'user'
        ? await signInOidcUser(this.ctx, identity, { kiosk: flow.kiosk, meta, previousToken })
        : await signInOidcAdmin(this.ctx, identity, { meta, previousToken });
    await this.#rememberSignOut(config, r, session, tokens.id_token);
    return {
      realm: r.realm,
      ...session,
      kiosk: flow.kiosk,
      redirect: r.realm === 'user' ? userHome(settings.NewUserDashboard) : ADMIN_HOME,
    };
  }

  #identity(r: OidcRealmSettings, claims: Claims, idClaims: { iss: string; sub: string }): OidcIdentity {
    const named = userNameClaim(claims, r.userNameClaim);
    if ('problem' in named) throw refuse(named.problem);
    const description = `OpenID Connect: ${providerName(r)}`;
    let groups: string[] | null = null;
    if (r.groupsClaim !== '') {
      const found = groupsClaim(claims, r.groupsClaim);
      if (found.skipped > 0) {
        this.ctx.logger.warn(
          { userName: named.userName, skipped: found.skipped },
          'OpenID Connect groups skipped (too long, too many, or not strings)',
        );
      }
      groups = found.names;
    }
    return {
      realm: r.realm,
      external: { issuer: idClaims.iss, subject: idClaims.sub },
      userName: named.userName,
      displayName: displayNameClaim(claims, named.userName),
      groups,
      description,
    };
  }

  /** Keeps the provider's logout URL for the new session when it offers RP-initiated logout. */
  async #rememberSignOut(
    config: client.Configuration,
    r: OidcRealmSettings,
    session: OidcSession,
    idToken: string | undefined,
  ): Promise<void> {
    if (config.serverMetadata().end_session_endpoint === undefined) return;
    const url = client.buildEndSessionUrl(config, {
      ...(idToken === undefined ? {} : { id_token_hint: idToken }),
      client_id: r.clientId,
      post_logout_redirect_uri: postLogoutRedirectUri(r.publicUrl, r.realm),
    });
    await this.ctx.db.transaction().execute((trx) =>
      rememberSignOut(trx, this.ctx, {
        sessionId: session.sessionId,
        realm: r.realm,
        endSessionUrl: url.href,
        expiresAt: session.endsAt,
      }),
    );
  }

  /** The realm's client secret, or OidcRefusal secretUnreadable (reported once an hour). */
  async #clientSecret(r: OidcRealmSettings): Promise<string> {
    try {
      return openClientSecret(this.ctx, r);
    } catch (error) {
      if (!(error instanceof SecretUnreadableError)) throw error;
      await reportUnreadableSecret(this.ctx, this.ctx.db, error);
      throw new OidcRefusal(
        ErrorCodes.secretUnreadable,
        `the ${r.realm} OpenID Connect client secret cannot be opened: ${error.reason}`,
      );
    }
  }

  /** A failed sign-in: logged with its reason (never a token) and audited with the provider's name. */
  async #recordFailure(r: OidcRealmSettings, refusal: OidcRefusal, meta: RequestMeta): Promise<void> {
    const reason = refusal.reason.slice(0, MAX_REASON_LENGTH);
    this.ctx.logger.info(
      { realm: r.realm, reason, account: refusal.accountName, ip: meta.ipAddress },
      'OpenID Connect sign-in refused',
    );
    const who =
      refusal.accountName === undefined
        ? {}
        : r.realm === 'user'
          ? { UserName: refusal.accountName }
          : { AdminName: refusal.accountName };
    const provider = r.issuer === '' ? 'OpenID Connect' : `OpenID Connect (${providerName(r)})`;
    await recordAudit(
      this.ctx.db,
      this.ctx.clock.now(),
      r.realm === 'user' ? AuditActions.UserLoginFailed : AuditActions.AdminLoginFailed,
      { ...who, IpAddress: meta.ipAddress, ErrorMessage: `${provider}: ${reason}` },
    );
  }
}

function newFlowCookie(): string {
  return randomBytes(32).toString('base64url');
}

/** The provider's metadata could not be had: unreachable, or not usable metadata. */
function unavailable(error: unknown): OidcRefusal {
  const failure = error instanceof SharedMetadataFailure ? error.failure : error;
  const why =
    failure instanceof ProviderUnreachableError || failure instanceof ProviderMetadataError
      ? failure.message
      : describeClientError(failure);
  return new OidcRefusal(ErrorCodes.oidcProviderUnavailable, `the provider is unavailable: ${why}`);
}

/**
 * Refusals the browser is told as they are: the provider is down or the realm not configured (so the
 * person knows to try later or ask), the account is disabled or may not log in, the secret cannot be
 * opened. Everything else looks like a failed authentication; its detail is in the log and audit.
 */
const SHOWN_REFUSALS: ReadonlySet<ErrorCode> = new Set([
  ErrorCodes.oidcNotConfigured,
  ErrorCodes.oidcProviderUnavailable,
  ErrorCodes.accountDisabled,
  ErrorCodes.loginNotPermitted,
  ErrorCodes.secretUnreadable,
]);

function asRefusal(error: unknown): OidcRefusal {
  if (error instanceof OidcRefusal) {
    return SHOWN_REFUSALS.has(error.code) ? error : refuse(error.reason, error.accountName);
  }
  return refuse(`internal error: ${error instanceof Error ? error.message : String(error)}`);
}

function refuse(reason: string, accountName?: string): OidcRefusal {
  return new OidcRefusal(ErrorCodes.authenticationFailed, reason, accountName);
}
