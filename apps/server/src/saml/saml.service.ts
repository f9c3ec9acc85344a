import { AuditActions, ErrorCodes, type ErrorCode } from '@postern/protocol';
import type { SAML } from '@node-saml/node-saml';
import type { AppContext, RequestMeta } from '../app-context.js';
import { recordAudit } from '../audit/audit.js';
import { readSettings, type Settings } from '../settings/settings.js';
import { samlConfigured, samlPrivateKey, type SamlRealm } from '../settings/settings.service.js';
import { IdpMetadataSource } from './idp-metadata-source.js';
import { CLOCK_SKEW_MS, createSamlClient, serviceProviderMetadata, type RealmSamlConfig } from './saml-client.js';
import { ADMIN_HOME, serviceProviderEndpoints, userHome } from './saml-endpoints.js';
import { readResponseEnvelope, SamlMessageError } from './saml-envelope.js';
import { checkVerifiedAssertion, type VerifiedAssertion } from './saml-assertion.js';
import { spendResponse } from './saml-store.js';
import { SamlRefusal, signInSamlAdmin, signInSamlUser } from './saml-signin.js';
import { SecretUnreadableError } from '../secrets/secret-box.js';
import { reportUnreadableSecret } from '../secrets/unreadable-secrets.js';

/** An accepted assertion id is remembered at least this long, whatever its own NotOnOrAfter says. */
const MIN_REPLAY_MEMORY_MS = 60 * 60_000;
/** Longest reason kept in an audit entry. */
const MAX_REASON_LENGTH = 300;

/** RelayState of a kiosk sign-in; the IdP echoes it back. Tampering with it can only shorten a session. */
const KIOSK_RELAY_STATE = 'kiosk=1';
const DEFAULT_RELAY_STATE = 'kiosk=0';

/** What the ACS posts: the form fields, untrusted. */
export interface AcsForm {
  SAMLResponse: string | undefined;
  RelayState: string | undefined;
}

export interface AcsSuccess {
  realm: SamlRealm;
  token: string;
  endsAt: number;
  /** A kiosk session's cookie dies with the browser. */
  kiosk: boolean;
  redirect: string;
}

/**
 * SAML single sign-on for both realms, each with its own IdP metadata, SP key and certificate. One
 * instance per app: it holds only the per-replica metadata cache; everything else is in the store.
 */
export class SamlService {
  readonly #metadata: IdpMetadataSource;

  constructor(private readonly ctx: AppContext) {
    this.#metadata = new IdpMetadataSource(ctx.clock, ctx.logger);
  }

  /** Our SP metadata, or null when the realm is not configured (the login page then shows no SSO). */
  async serviceProviderMetadata(realm: SamlRealm): Promise<string | null> {
    const settings = await readSettings(this.ctx.db);
    const keys = this.#keys(settings, realm);
    if (keys === null) return null;
    return serviceProviderMetadata(
      serviceProviderEndpoints(settings.PublicURL, realm),
      keys.certificate,
      keys.privateKey,
    );
  }

  /** The IdP URL carrying a signed AuthnRequest, whose id is now stored for InResponseTo. */
  async loginRedirect(realm: SamlRealm, kiosk: boolean): Promise<string> {
    const settings = await readSettings(this.ctx.db);
    const config = await this.#config(settings, realm);
    const relayState = realm === 'user' ? (kiosk ? KIOSK_RELAY_STATE : DEFAULT_RELAY_STATE) : '';
    return createSamlClient(this.ctx, config).getAuthorizeUrlAsync(relayState, undefined, {});
  }

  /**
   * Validates a response posted to the realm's ACS and signs its subject in. Throws SamlRefusal for
   * anything refused, after logging and auditing why; the caller only redirects.
   */
  async consume(
    realm: SamlRealm,
    form: AcsForm,
    meta: RequestMeta,
    previousToken: string | undefined,
  ): Promise<AcsSuccess> {
    try {
      const success = await this.#consume(realm, form, meta, previousToken);
      this.ctx.metrics.signIn('saml', 'success');
      return success;
    } catch (error) {
      this.ctx.metrics.signIn('saml', 'failure');
      const refusal = asAcsRefusal(error);
      if (!(error instanceof SamlRefusal || error instanceof SamlMessageError)) {
        this.ctx.logger.error({ err: error, realm }, 'SAML sign-in failed');
      }
      await this.#recordFailure(realm, refusal, meta);
      throw refusal;
    }
  }

  async #consume(
    realm: SamlRealm,
    form: AcsForm,
    meta: RequestMeta,
    previousToken: string | undefined,
  ): Promise<AcsSuccess> {
    const settings = await readSettings(this.ctx.db);
    if (form.SAMLResponse === undefined) throw refuse('no SAMLResponse in the form');
    const envelope = readResponseEnvelope(form.SAMLResponse);
    const config = await this.#config(settings, realm);
    const profile = await this.#validate(settings, config, form.SAMLResponse, envelope.signed);
    // node-saml leaves the Destination to us. It must name this realm's ACS exactly.
    if (envelope.destination !== config.sp.acsUrl) {
      throw refuse(`Destination ${JSON.stringify(envelope.destination)} is not this ACS (${config.sp.acsUrl})`);
    }
    const now = this.ctx.clock.now();
    const assertion = checkVerifiedAssertion(profile, {
      idpEntityId: config.idp.entityId,
      acsUrl: config.sp.acsUrl,
      now,
      clockSkewMs: CLOCK_SKEW_MS,
    });
    const spent = await spendResponse(this.ctx.db, this.ctx.clock, {
      realm,
      requestId: assertion.requestId,
      assertionId: assertion.assertionId,
      keepUntil: Math.max(assertion.acceptableUntil, now + MIN_REPLAY_MEMORY_MS),
    });
    if (spent !== 'spent') {
      throw refuse(
        spent === 'assertion-replayed' ? 'the assertion was already used (replay)' : 'the request was already answered',
        assertion.nameId,
      );
    }
    return realm === 'user'
      ? this.#signInUser(settings, assertion, form.RelayState === KIOSK_RELAY_STATE, meta, previousToken)
      : this.#signInAdmin(assertion, meta, previousToken);
  }

  async #signInUser(
    settings: Settings,
    assertion: VerifiedAssertion,
    kiosk: boolean,
    meta: RequestMeta,
    previousToken: string | undefined,
  ): Promise<AcsSuccess> {
    const session = await signInSamlUser(this.ctx, assertion, { kiosk, meta, previousToken });
    return { realm: 'user', ...session, kiosk, redirect: userHome(settings.NewUserDashboard) };
  }

  async #signInAdmin(
    assertion: VerifiedAssertion,
    meta: RequestMeta,
    previousToken: string | undefined,
  ): Promise<AcsSuccess> {
    const session = await signInSamlAdmin(this.ctx, assertion, { meta, previousToken });
    return { realm: 'admin', ...session, kiosk: false, redirect: ADMIN_HOME };
  }

  /**
   * node-saml's validation (signatures, InResponseTo, time conditions, audience). When it fails on a
   * signature and the metadata came from a URL, the IdP may have rolled its key: the metadata is
   * fetched again and, if its certificates changed, the response is checked once more.
   */
  async #validate(settings: Settings, config: RealmSamlConfig, samlResponse: string, responseSigned: boolean) {
    const attempt = async (client: SAML) => {
      const { profile } = await client.validatePostResponseAsync({ SAMLResponse: samlResponse });
      if (profile === null) throw new SamlMessageError('the message is not a sign-in response');
      return profile;
    };
    try {
      return await attempt(createSamlClient(this.ctx, config, responseSigned));
    } catch (error) {
      if (/signature/i.test(describe(error))) {
        const fresh = await this.#metadata.refetchIfChanged(settings, config.realm);
        if (fresh !== null) {
          this.ctx.logger.info({ realm: config.realm }, 'SAML IdP certificates changed; checking the response again');
          try {
            return await attempt(createSamlClient(this.ctx, { ...config, idp: fresh }, responseSigned));
          } catch (retryError) {
            throw refuse(`validation failed: ${describe(retryError)}`);
          }
        }
      }
      throw refuse(`validation failed: ${describe(error)}`);
    }
  }

  /**
   * The realm's full configuration, or SamlRefusal (samlNotConfigured / samlMetadataUnavailable /
   * secretUnreadable: the SP key is sealed but cannot be opened, reported here once an hour).
   */
  async #config(settings: Settings, realm: SamlRealm): Promise<RealmSamlConfig> {
    let keys;
    try {
      keys = this.#keys(settings, realm);
    } catch (error) {
      if (!(error instanceof SecretUnreadableError)) throw error;
      await reportUnreadableSecret(this.ctx, this.ctx.db, error);
      throw new SamlRefusal(ErrorCodes.secretUnreadable, `the ${realm} SAML SP key cannot be opened: ${error.reason}`);
    }
    if (keys === null) throw new SamlRefusal(ErrorCodes.samlNotConfigured, `SAML is not configured for ${realm}s`);
    let idp;
    try {
      idp = await this.#metadata.load(settings, realm);
    } catch (error) {
      this.ctx.logger.warn({ err: error, realm }, 'SAML IdP metadata unavailable');
      throw new SamlRefusal(ErrorCodes.samlMetadataUnavailable, `IdP metadata unavailable: ${describe(error)}`);
    }
    return { realm, sp: serviceProviderEndpoints(settings.PublicURL, realm), ...keys, idp };
  }

  #keys(settings: Settings, realm: SamlRealm): { certificate: string; privateKey: string } | null {
    if (!samlConfigured(settings, realm)) return null;
    const privateKey = samlPrivateKey(this.ctx, settings, realm);
    const certificate = realm === 'user' ? settings.SAMLCertFile : settings.AdminSAMLCertFile;
    return privateKey === null ? null : { certificate, privateKey };
  }

  /** A failed sign-in: logged with its reason (never the message itself) and audited. */
  async #recordFailure(realm: SamlRealm, refusal: SamlRefusal, meta: RequestMeta): Promise<void> {
    const reason = refusal.reason.slice(0, MAX_REASON_LENGTH);
    this.ctx.logger.info({ realm, reason, account: refusal.accountName, ip: meta.ipAddress }, 'SAML sign-in refused');
    const who =
      refusal.accountName === undefined
        ? {}
        : realm === 'user'
          ? { UserName: refusal.accountName }
          : { AdminName: refusal.accountName };
    await recordAudit(
      this.ctx.db,
      this.ctx.clock.now(),
      realm === 'user' ? AuditActions.UserLoginFailed : AuditActions.AdminLoginFailed,
      { ...who, IpAddress: meta.ipAddress, ErrorMessage: `SAML: ${reason}` },
    );
  }
}

/**
 * Refusals the browser is told as they are: the account is disabled or may not log in, or the SP key
 * cannot be opened (nothing the person can fix, but something they can tell an admin, who finds the
 * detail in the audit log).
 */
const SHOWN_REFUSALS: ReadonlySet<ErrorCode> = new Set([
  ErrorCodes.accountDisabled,
  ErrorCodes.loginNotPermitted,
  ErrorCodes.secretUnreadable,
]);

/**
 * What the browser learns about a refused response: a shown refusal, or that authentication failed.
 * Configuration problems, malformed messages and internal errors all look like a failed
 * authentication; their detail is in the log and the audit entry.
 */
function asAcsRefusal(error: unknown): SamlRefusal {
  if (error instanceof SamlRefusal) {
    return SHOWN_REFUSALS.has(error.code) ? error : refuse(error.reason, error.accountName);
  }
  if (error instanceof SamlMessageError) return refuse(error.message);
  return refuse(`internal error: ${describe(error)}`);
}

function refuse(reason: string, accountName?: string): SamlRefusal {
  return new SamlRefusal(ErrorCodes.authenticationFailed, reason, accountName);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
