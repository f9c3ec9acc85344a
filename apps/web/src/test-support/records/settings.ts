import type {
  AuthenticationSettings,
  AuthenticationSettingsBody,
  LicenceStatus,
  SettingsRecord,
} from '@postern/protocol';

/* Test data only: the Settings screen's three reads, each with its defaults. */

/** GET /api/admin/settings with every default. */
export function settingsRecord(overrides: Partial<SettingsRecord> = {}): SettingsRecord {
  return {
    License: '',
    CachedLicenses: [],
    DiscoverIP: false,
    DiscoverIPURL: '',
    DiscoverIPv4URL: '',
    DiscoverIPv6URL: '',
    DiscoverIPTrustUnattested: false,
    DebugMode: false,
    GELFListenerURL: '',
    KioskSessionDuration: 15,
    Accent: 'grape',
    Logo: '',
    LightModeLogo: '',
    HighAccessibility: false,
    NewUserDashboard: true,
    ...overrides,
  };
}

/** The OpenID Connect fields of GET /api/admin/settings/authentication with nothing configured. */
export function oidcAuthenticationDefaults() {
  const realm = <P extends '' | 'Admin'>(p: P) => ({
    [`${p}OIDCIssuerURL`]: '',
    [`${p}OIDCClientID`]: '',
    [`${p}OIDCClientSecretSet`]: false,
    [`${p}OIDCDisplayName`]: '',
    [`${p}OIDCUserNameClaim`]: 'preferred_username',
    [`${p}OIDCGroupsClaim`]: 'groups',
    [`${p}OIDCScopes`]: 'openid profile email groups',
    [`${p}OIDCRedirectURL`]: '',
  });
  return {
    ...realm(''),
    ...realm('Admin'),
    UserOIDCConfigured: false,
    AdminOIDCConfigured: false,
  } as Pick<AuthenticationSettings, Extract<keyof AuthenticationSettings, `${string}OIDC${string}`>>;
}

/**
 * The OpenID Connect fields of PUT /api/admin/settings/authentication when the form of
 * oidcAuthenticationDefaults was left alone: each text as stored, no secret, no removal.
 */
export function oidcBodyDefaults(): Partial<AuthenticationSettingsBody> {
  const realm = <P extends '' | 'Admin'>(p: P) => ({
    [`${p}OIDCIssuerURL`]: '',
    [`${p}OIDCClientID`]: '',
    [`${p}OIDCDisplayName`]: '',
    [`${p}OIDCUserNameClaim`]: 'preferred_username',
    [`${p}OIDCGroupsClaim`]: 'groups',
    [`${p}OIDCScopes`]: 'openid profile email groups',
  });
  return { ...realm(''), ...realm('Admin') };
}

/** The passkey switches of GET /api/admin/settings/authentication as a new installation has them. */
export function passkeySettingsDefaults(): Pick<AuthenticationSettings, 'UserPasskeySignIn' | 'AdminPasskeySignIn'> {
  return { UserPasskeySignIn: true, AdminPasskeySignIn: false };
}

/**
 * The passkey switches of PUT /api/admin/settings/authentication when the form of
 * passkeySettingsDefaults was left alone: both are always sent, as stored.
 */
export function passkeyBodyDefaults(): Partial<AuthenticationSettingsBody> {
  return passkeySettingsDefaults();
}

/** GET /api/admin/settings/authentication with nothing configured. */
export function authenticationSettings(overrides: Partial<AuthenticationSettings> = {}): AuthenticationSettings {
  return {
    SAMLMetadataURL: '',
    SAMLMetadataFileSet: false,
    SAMLKeyFileSet: false,
    SAMLCertFileSet: false,
    SAMLCert: '',
    AdminSAMLMetadataURL: '',
    AdminSAMLMetadataFileSet: false,
    AdminSAMLKeyFileSet: false,
    AdminSAMLCertFileSet: false,
    AdminSAMLCert: '',
    PublicURL: '',
    LDAPURL: '',
    LDAPStartTLS: false,
    LDAPSkipVerifyTLS: false,
    UserSAMLConfigured: false,
    AdminSAMLConfigured: false,
    ...oidcAuthenticationDefaults(),
    ...passkeySettingsDefaults(),
    ...overrides,
  };
}

/** GET /api/admin/settings/license of an unlicensed installation. */
export function unlicensed(overrides: Partial<LicenceStatus> = {}): LicenceStatus {
  return {
    Licensed: false,
    ID: '',
    Licensee: '',
    UserLimit: 0,
    UserLimitOverage: 0,
    UserLimitOveragePercentage: 0,
    SessionLimit: 0,
    MaxMachines: 0,
    MachineCount: 0,
    Expires: null,
    Expired: false,
    UserCount: 0,
    ...overrides,
  };
}

/** A valid licence for 50 users with 20 % overage, expiring in about 100 days. */
export function licensed(overrides: Partial<LicenceStatus> = {}): LicenceStatus {
  return unlicensed({
    Licensed: true,
    ID: 'lic-7f3a',
    Licensee: 'Example Ltd',
    UserLimit: 50,
    UserLimitOverage: 10,
    UserLimitOveragePercentage: 20,
    SessionLimit: 5,
    MaxMachines: 4,
    MachineCount: 2,
    Expires: new Date(Date.now() + 100.5 * 86_400_000).toISOString(),
    UserCount: 12,
    ...overrides,
  });
}
