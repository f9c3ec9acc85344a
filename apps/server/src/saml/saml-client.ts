import { generateServiceProviderMetadata, SAML, ValidateInResponseTo } from '@node-saml/node-saml';
import type { AppContext } from '../app-context.js';
import type { SamlRealm } from '../settings/settings.service.js';
import type { IdpMetadata } from './idp-metadata.js';
import type { ServiceProviderEndpoints } from './saml-endpoints.js';
import { SAML_REQUEST_LIFETIME_MS, SamlRequestCache } from './saml-store.js';

/** Clocks of IdP and Postern may differ this much when judging NotBefore / NotOnOrAfter. */
export const CLOCK_SKEW_MS = 60_000;

/**
 * We ask for no particular NameID format (the IdP decides, and sends the user name), and refuse a
 * transient one when it arrives (it changes at every sign-in and cannot name an account).
 */
const NAMEID_UNSPECIFIED = 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified';

/** Everything one realm's service provider needs, read from the settings and the IdP metadata. */
export interface RealmSamlConfig {
  realm: SamlRealm;
  sp: ServiceProviderEndpoints;
  /** PEM of our signing certificate (published in our metadata). */
  certificate: string;
  /** PEM of our private key (signs AuthnRequests). */
  privateKey: string;
  idp: IdpMetadata;
}

/**
 * A node-saml client for one realm and one request. It is cheap to build, so none is kept: settings
 * and metadata may change between requests, and all state lives in the store.
 *
 * Security choices:
 * - wantAssertionsSigned: the assertion itself must carry a valid signature by a metadata
 *   certificate, always.
 * - wantAuthnResponseSigned: required exactly when the Response carries a signature of its own (a
 *   signature that is present must verify); many IdPs sign only the assertion, which is enough
 *   because we check the signed SubjectConfirmationData (Recipient, InResponseTo) ourselves.
 * - validateInResponseTo always, against the saml_requests table of this realm: no unsolicited
 *   (IdP-initiated) responses, no response to another realm's request.
 * - The audience is our entity ID; requests are signed (RSA-SHA256) with the realm's SP key.
 * - No decryption key: encrypted assertions are not accepted (they would put xml-encryption, with
 *   legacy algorithms enabled by node-saml, in front of unauthenticated input). Our metadata publishes
 *   no encryption key, so IdPs do not encrypt.
 */
export function createSamlClient(ctx: AppContext, config: RealmSamlConfig, responseSigned = false): SAML {
  return new SAML({
    issuer: config.sp.entityId,
    audience: config.sp.entityId,
    callbackUrl: config.sp.acsUrl,
    entryPoint: config.idp.ssoUrl,
    idpIssuer: config.idp.entityId,
    idpCert: config.idp.certificates,
    privateKey: config.privateKey,
    publicCert: config.certificate,
    signatureAlgorithm: 'sha256',
    digestAlgorithm: 'sha256',
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: responseSigned,
    validateInResponseTo: ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: SAML_REQUEST_LIFETIME_MS,
    cacheProvider: new SamlRequestCache(ctx.db, ctx.clock, config.realm),
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    identifierFormat: NAMEID_UNSPECIFIED,
    // The IdP decides how people authenticate (password, MFA, passkeys); asking for an exact class
    // such as PasswordProtectedTransport would make IdPs with stronger methods refuse or fail.
    disableRequestedAuthnContext: true,
    authnRequestBinding: 'HTTP-Redirect',
  });
}

/** Our metadata for the realm: entity ID, ACS (HTTP-POST), signing certificate, signed assertions wanted. */
export function serviceProviderMetadata(sp: ServiceProviderEndpoints, certificate: string, privateKey: string): string {
  return generateServiceProviderMetadata({
    issuer: sp.entityId,
    callbackUrl: sp.acsUrl,
    publicCerts: certificate,
    // Only tells node-saml that we sign requests (AuthnRequestsSigned="true"); the metadata itself is
    // not signed.
    privateKey,
    signatureAlgorithm: 'sha256',
    wantAssertionsSigned: true,
    identifierFormat: NAMEID_UNSPECIFIED,
  });
}
