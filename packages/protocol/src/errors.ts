import { z } from 'zod';

/**
 * Every error code the server sends as `Err`. The web app translates each one; a test fails when a
 * code lacks an English or German text. Add codes here, never as string literals elsewhere.
 */
export const ErrorCodes = {
  badRequest: 'err.badRequest',
  invalidCredentials: 'err.invalidCredentials',
  invalidSession: 'err.invalidSession',
  sessionExpired: 'err.sessionExpired',
  unauthorised: 'err.unauthorised',
  forbiddenOrigin: 'err.forbiddenOrigin',
  notFound: 'err.notFound',
  conflict: 'err.conflict',
  payloadTooLarge: 'err.payloadTooLarge',
  unsupportedMediaType: 'err.unsupportedMediaType',
  tooManyRequests: 'err.tooManyRequests',
  internalServerError: 'err.internalServerError',
  storeUnavailable: 'err.storeUnavailable',
  failedSettingCookie: 'err.failedSettingCookie',
  failedToCreateSession: 'err.failedToCreateSession',
  loginNotPermitted: 'err.loginNotPermitted',
  accountDisabled: 'err.accountDisabled',
  authenticationFailed: 'err.authenticationFailed',
  totpVerificationRequired: 'err.totpVerificationRequired',
  totpEnrolmentRequired: 'err.totpEnrolmentRequired',
  alreadyVerified2fa: 'err.alreadyVerified2fa',
  userAlreadyVerified: 'err.userAlreadyVerified',
  invalidCode: 'err.invalidCode',
  /** A right code that was already accepted once (each is, once): the app's next code will do. */
  totpCodeUsed: 'err.totpCodeUsed',
  samlNotConfigured: 'err.samlNotConfigured',
  licenceRequired: 'err.licenceRequired',
  cannotResetOwn2fa: 'err.cannotResetOwn2fa',
  cannotDisableOwn2fa: 'err.cannotDisableOwn2fa',
  failedToRecordGrants: 'err.failedToRecordGrants',
  agentNameExists: 'err.agentNameExists',
  agentHasBackends: 'err.agentHasBackends',
  mismatchingIds: 'err.mismatchingIds',
  // Agents, backends and knocs.
  agentNotFound: 'err.agentNotFound',
  agentIdIncorrect: 'err.agentIdIncorrect',
  agentIncapable: 'err.agentIncapable',
  agentVersionTooOld: 'err.agentVersionTooOld',
  backendConfigOneType: 'err.backendConfigOneType',
  backendTypeFixed: 'err.backendTypeFixed',
  backendNameExists: 'err.backendNameExists',
  reenterCredentials: 'err.reenterCredentials',
  // Secrets are sealed to the agent that uses them (Extra: the fields, or the agent's name).
  reenterSecretsForAgent: 'err.reenterSecretsForAgent',
  agentCannotSeal: 'err.agentCannotSeal',
  /** AWS: an access key ID without its secret (or the reverse); both empty means the host's credentials. */
  awsKeysIncomplete: 'err.awsKeysIncomplete',
  /** A Fortinet (FortiOS) backend or knoc config with a missing or malformed field (Extra: the field). */
  invalidFortinetConfig: 'err.invalidFortinetConfig',
  /** A script webhook URL in plain http to a host other than this machine (see script-webhook.ts). */
  webhookUrlNotEncrypted: 'err.webhookUrlNotEncrypted',
  /** A script webhook without a WebhookSecret of at least WEBHOOK_SECRET_MIN_LENGTH characters. */
  webhookSecretRequired: 'err.webhookSecretRequired',
  invalidAddress: 'err.invalidAddress',
  invalidIpAddress: 'err.invalidIpAddress',
  ipRangeRequired: 'err.ipRangeRequired',
  maximumGrantDurationRange: 'err.maximumGrantDurationRange',
  aclConfigMismatch: 'err.aclConfigMismatch',
  allowlistAccessIpRestrictionFormRequired: 'err.allowlistAccessIpRestrictionFormRequired',
  repeatedEnvVarNames: 'err.repeatedEnvVarNames',
  emptyEnvVarName: 'err.emptyEnvVarName',
  invalidEnvVarName: 'err.invalidEnvVarName',
  envVarValueRequired: 'err.envVarValueRequired',
  createBackendBeforeACL: 'err.createBackendBeforeACL',
  invalidAclName: 'err.invalidAclName',
  aclIdRequired: 'err.aclIdRequired',
  aclIdMustBeNumber: 'err.aclIdMustBeNumber',
  aclNameRequired: 'err.aclNameRequired',
  invalidKnocproxyAclName: 'err.invalidKnocproxyAclName',
  ipsetNameRequired: 'err.ipsetNameRequired',
  ipsetNotAllowed: 'err.ipsetNotAllowed',
  noBackendSelected: 'err.noBackendSelected',
  invalidParent: 'err.invalidParent',
  // Why an agent cannot run a backend type (Extra of err.agentIncapable; the wizard's reasons too).
  agentNeverConnected: 'err.agentNeverConnected',
  agentBackendTypeNotSupported: 'err.agentBackendTypeNotSupported',
  ipsetNoCommand: 'err.ipsetNoCommand',
  ipsetNoSudo: 'err.ipsetNoSudo',
  nftablesNoCommand: 'err.nftablesNoCommand',
  nftablesNoSudo: 'err.nftablesNoSudo',
  /** An nftables table, chain or set name Postern does not write (see NFTABLES_NAME_PATTERN). */
  nftablesInvalidName: 'err.nftablesInvalidName',
  /** A knoc's nftables set is not among those its agent reported in the backend's table. */
  nftablesSetNotAllowed: 'err.nftablesSetNotAllowed',
  managedRuleInvalidChain: 'err.managedRuleInvalidChain',
  managedRulePortsRequired: 'err.managedRulePortsRequired',
  agentScriptsDisabled: 'err.agentScriptsDisabled',
  /** The console: no agent can drive this backend type (allowlist needs none). */
  backendTypeNoAgents: 'err.backendTypeNoAgents',
  /** The console: an agent reports a backend type this server does not know. */
  agentBackendTypeNotSupportedByServer: 'err.agentBackendTypeNotSupportedByServer',
  /** The console: creating or updating knocs needs a licence (the wizard and update screens). */
  youDoNotHaveALicense: 'err.youDoNotHaveALicense',
  unlicensedDescription: 'err.unlicensedDescription',
  // Grants.
  aclNotAvailable: 'err.aclNotAvailable',
  aclDisabledForUser: 'err.aclDisabledForUser',
  agentOffline: 'err.agentOffline',
  noGrantableAddress: 'err.noGrantableAddress',
  /** The address is one no grant ever opens (loopback, link-local, multicast, cloud metadata; see net.ts). */
  ipAddressNotGrantable: 'err.ipAddressNotGrantable',
  /** Postern has not seen the caller use this address: no valid discovery attestation, not the request's own. */
  ipAddressNotSeen: 'err.ipAddressNotSeen',
  grantNotFound: 'err.grantNotFound',
  // Validation messages of the specification, used as zod messages so forms and API say the same.
  urlMustBeHttp: 'err.urlMustBeHttp',
  /** An OpenID Connect issuer: https (plain http only on a loopback address, for development and tests). */
  urlMustBeHttps: 'err.urlMustBeHttps',
  urlMustBeLdap: 'err.urlMustBeLdap',
  urlMustBeGelf: 'err.urlMustBeGelf',
  /** An admin-configured URL carries a user name or password (`user:pass@host`). */
  urlCredentialsNotAllowed: 'err.urlCredentialsNotAllowed',
  /** An admin-configured URL with an allowed scheme, but whitespace, a bad host or port (see endpoint.ts). */
  urlInvalid: 'err.urlInvalid',
  /** A vendor Hostname that is not a host name or IP address (with an optional port). */
  invalidHostname: 'err.invalidHostname',
  kioskDurationRange: 'err.kioskDurationRange',
  userDurationRange: 'err.userDurationRange',
  passwordLength: 'err.passwordLength',
  passwordsDontMatch: 'err.passwordsDontMatch',
  invalidCidr: 'err.invalidCidr',
  invalidScope: 'err.invalidScope',
  ldapDnRequired: 'err.ldapDnRequired',
  logoFormat: 'err.logoFormat',
  logoTooLarge: 'err.logoTooLarge',
  /** The logo is wider or higher than LOGO_MAX_SIDE_PIXELS, or has more than LOGO_MAX_PIXELS. */
  logoDimensionsTooLarge: 'err.logoDimensionsTooLarge',
  // Directory rules.
  userNameExists: 'err.userNameExists',
  adminNameExists: 'err.adminNameExists',
  groupNameExists: 'err.groupNameExists',
  apiKeyNameExists: 'err.apiKeyNameExists',
  cannotChangeIdentity: 'err.cannotChangeIdentity',
  groupTypeFixed: 'err.groupTypeFixed',
  apiKeyFieldFixed: 'err.apiKeyFieldFixed',
  apiKeyAddressNotAllowed: 'err.apiKeyAddressNotAllowed',
  /** A machine sign-in with a real key whose ExpiredAfter has passed (an unknown key gets err.unauthorised). */
  apiKeyExpired: 'err.apiKeyExpired',
  /** A machine sign-in with a key whose user is not an API-key user (a person signs in with their password). */
  apiKeySignInNotAllowed: 'err.apiKeySignInNotAllowed',
  cannotDeleteSelf: 'err.cannotDeleteSelf',
  userLimitReached: 'err.userLimitReached',
  passwordChangeNotAllowed: 'err.passwordChangeNotAllowed',
  totpNotEnabled: 'err.totpNotEnabled',
  totpEnrolmentNotDeferable: 'err.totpEnrolmentNotDeferable',
  // Licence.
  licenceInvalid: 'err.licenceInvalid',
  licenceExpired: 'err.licenceExpired',
  /** The licence's IssuedAt lies in the future (beyond the allowed clock skew). */
  licenceNotYetValid: 'err.licenceNotYetValid',
  failedToRefreshLicenseStatus: 'err.failedToRefreshLicenseStatus',
  // Outbound services an admin configured.
  ldapUnavailable: 'err.ldapUnavailable',
  samlMetadataUnavailable: 'err.samlMetadataUnavailable',
  /** OpenID Connect sign-in is not set up for this realm (issuer, client and PublicURL). */
  oidcNotConfigured: 'err.oidcNotConfigured',
  /** The OpenID Connect provider could not be reached, or answered with something that is not its metadata. */
  oidcProviderUnavailable: 'err.oidcProviderUnavailable',
  /**
   * A secret the request needs is stored sealed but cannot be opened (moved to another row, altered,
   * or sealed with another key): 409, since retrying cannot help until an admin re-enters or resets it.
   */
  secretUnreadable: 'err.secretUnreadable',
  /** "Test this knoc" on a knoc no agent enforces (an allowlist, or no backend): there is no device to test. */
  knocTestNoDevice: 'err.knocTestNoDevice',
  /** The agent refused the test entry: 409, Extra is what the device said. The test grant was ended. */
  knocTestApplyFailed: 'err.knocTestApplyFailed',
  /** The agent did not report on the test entry in time: 409. The test grant was ended. */
  knocTestNoAnswer: 'err.knocTestNoAnswer',
  // Passkeys (webauthn.ts).
  /** The passkey's answer did not prove what it must (challenge, origin, signature, user verification): 401. */
  passkeyVerificationFailed: 'err.passkeyVerificationFailed',
  /**
   * The passkey's signature counter went back: the authenticator may have been cloned. Refused (401)
   * and audited; the owner or an administrator removes the passkey.
   */
  passkeyCounterRegressed: 'err.passkeyCounterRegressed',
  /** No passkey of this account has that ID: 404. */
  passkeyNotFound: 'err.passkeyNotFound',
  /** The account holds MAX_PASSKEYS_PER_ACCOUNT passkeys already: 409. */
  passkeyLimitReached: 'err.passkeyLimitReached',
  /** The passkey is registered already (the authenticator holds it for this account): 409. */
  passkeyAlreadyRegistered: 'err.passkeyAlreadyRegistered',
  /** A sign-in waiting for its second factor asked for passkey options, but the account has none: 409. */
  noPasskeys: 'err.noPasskeys',
  /** Signing in with a passkey alone is off for this realm (settings): 403. */
  passkeySignInDisabled: 'err.passkeySignInDisabled',
  /**
   * A passkey alone signs in local accounts only: an LDAP account's password is the directory's, and
   * a passkey sign-in would never ask the directory whether the person may still sign in. Its
   * passkeys are its second factor: 403.
   */
  passkeyOnlySecondFactor: 'err.passkeyOnlySecondFactor',
  /** The ceremony is unknown, spent or older than WEBAUTHN_CEREMONY_MS: 400; start again. */
  ceremonyExpired: 'err.ceremonyExpired',
  /** Adding or removing a passkey needs a sign-in within PASSKEY_CHANGE_WINDOW_MINUTES: 403. */
  recentSignInRequired: 'err.recentSignInRequired',
  /**
   * Passkeys are for the accounts whose factors Postern checks (local and LDAP); SAML and OpenID
   * Connect accounts get theirs from their provider, API-key accounts have none: 403.
   */
  passkeysNotForThisAccount: 'err.passkeysNotForThisAccount',
  /**
   * Removing this passkey would leave an account that must sign in with a second factor without one
   * (it has no verified TOTP authenticator): 409. Set up TOTP or add another passkey first.
   */
  lastSecondFactor: 'err.lastSecondFactor',
} as const;

export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

/** All error codes, for exhaustive checks (translations, docs). */
export const ALL_ERROR_CODES: readonly ErrorCode[] = Object.values(ErrorCodes);

/** The body of every failed API call. `Extra` names the field or detail; it may itself be an `err.` key. */
export const ApiErrorBody = z.object({
  Err: z.string(),
  Extra: z.string().optional(),
});
export type ApiErrorBody = z.infer<typeof ApiErrorBody>;
