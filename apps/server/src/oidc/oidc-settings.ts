import {
  OIDC_DEFAULT_SCOPES,
  OIDC_DEFAULT_USER_NAME_CLAIM,
  isLoopbackHost,
  type AuthenticationSettingsBody,
  type OidcRealm,
} from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { BadRequestError } from '../errors.js';
import type { Settings } from '../settings/settings.js';
import { sealedSettingContext } from '../settings/settings.service.js';
import { redirectUri } from './oidc-endpoints.js';

/** The prefix of a realm's settings: the admins' are the users' names with `Admin` before them. */
const PREFIX: Record<OidcRealm, '' | 'Admin'> = { user: '', admin: 'Admin' };

/** The settings rows holding each realm's sealed client secret. */
export const OIDC_SECRET_SETTINGS: Record<OidcRealm, 'OIDCClientSecret' | 'AdminOIDCClientSecret'> = {
  user: 'OIDCClientSecret',
  admin: 'AdminOIDCClientSecret',
};

/** One realm's OpenID Connect configuration as the sign-in uses it. */
export interface OidcRealmSettings {
  realm: OidcRealm;
  issuer: string;
  clientId: string;
  /** The sealed client secret ('' for none): opened only where it is sent (openClientSecret). */
  sealedSecret: string;
  displayName: string;
  userNameClaim: string;
  /** '' maps no groups. */
  groupsClaim: string;
  /** The scopes asked for, `openid` first. */
  scopes: string[];
  redirectUri: string;
  publicUrl: string;
}

export function oidcRealmSettings(s: Settings, realm: OidcRealm): OidcRealmSettings {
  const p = PREFIX[realm];
  return {
    realm,
    issuer: s[`${p}OIDCIssuerURL`],
    clientId: s[`${p}OIDCClientID`],
    sealedSecret: s[`${p}OIDCClientSecret`],
    displayName: s[`${p}OIDCDisplayName`],
    userNameClaim: s[`${p}OIDCUserNameClaim`],
    groupsClaim: s[`${p}OIDCGroupsClaim`],
    scopes: requestedScopes(s[`${p}OIDCScopes`]),
    redirectUri: s.PublicURL === '' ? '' : redirectUri(s.PublicURL, realm),
    publicUrl: s.PublicURL,
  };
}

/** Sign-in through a realm's provider needs its issuer, the client's ID and secret, and PublicURL. */
export function oidcConfigured(s: Settings, realm: OidcRealm): boolean {
  const r = oidcRealmSettings(s, realm);
  return r.issuer !== '' && r.clientId !== '' && r.sealedSecret !== '' && r.publicUrl !== '';
}

/** The provider's name for people: the display name, else the issuer's host. */
export function providerName(r: Pick<OidcRealmSettings, 'displayName' | 'issuer'>): string {
  if (r.displayName !== '') return r.displayName;
  try {
    return new URL(r.issuer).host;
  } catch {
    return r.issuer;
  }
}

/** Plain http is allowed only to a loopback issuer (development and tests); protocol OidcIssuerUrl. */
export function allowsPlainHttp(issuer: string): boolean {
  try {
    const url = new URL(issuer);
    return url.protocol === 'http:' && isLoopbackHost(url.hostname);
  } catch {
    return false;
  }
}

/** The realm's client secret, opened from its sealed form (SecretUnreadableError when it cannot be). */
export function openClientSecret(ctx: AppContext, r: OidcRealmSettings): string {
  return ctx.secrets.open(r.sealedSecret, sealedSettingContext(OIDC_SECRET_SETTINGS[r.realm]));
}

/** The scopes of a setting, each once, `openid` always and first (OpenID Connect needs it). */
export function requestedScopes(setting: string): string[] {
  const named = setting.split(/\s+/).filter((scope) => scope !== '');
  return [...new Set(['openid', ...(named.length === 0 ? OIDC_DEFAULT_SCOPES.split(' ') : named)])];
}

type RealmRecord<P extends '' | 'Admin'> = {
  [
    K in `${P}OIDC${'IssuerURL' | 'ClientID' | 'DisplayName' | 'UserNameClaim' | 'GroupsClaim' | 'Scopes' | 'RedirectURL'}`
  ]: string;
} & { [K in `${P}OIDCClientSecretSet`]: boolean };

function realmRecord<P extends '' | 'Admin'>(s: Settings, realm: OidcRealm, prefix: P): RealmRecord<P> {
  const r = oidcRealmSettings(s, realm);
  return {
    [`${prefix}OIDCIssuerURL`]: r.issuer,
    [`${prefix}OIDCClientID`]: r.clientId,
    [`${prefix}OIDCClientSecretSet`]: r.sealedSecret !== '',
    [`${prefix}OIDCDisplayName`]: r.displayName,
    [`${prefix}OIDCUserNameClaim`]: r.userNameClaim,
    [`${prefix}OIDCGroupsClaim`]: r.groupsClaim,
    [`${prefix}OIDCScopes`]: r.scopes.join(' '),
    [`${prefix}OIDCRedirectURL`]: r.redirectUri,
  } as RealmRecord<P>;
}

/** The OpenID Connect part of GET /api/admin/settings/authentication: never the client secrets. */
export function oidcSettingsRecord(s: Settings) {
  return {
    ...realmRecord(s, 'user', ''),
    ...realmRecord(s, 'admin', 'Admin'),
    UserOIDCConfigured: oidcConfigured(s, 'user'),
    AdminOIDCConfigured: oidcConfigured(s, 'admin'),
  };
}

/**
 * The OpenID Connect part of PUT /api/admin/settings/authentication: each field left out stays as it
 * is. The client secret is sealed at rest; it is kept when not re-entered, except that an issuer
 * moved to another origin needs it re-entered (a secret is never sent to a host the admin changed
 * without entering it again: DESIGN.md, outbound URLs).
 */
export function oidcSettingChanges(
  ctx: AppContext,
  current: Settings,
  body: AuthenticationSettingsBody,
): Partial<Settings> {
  const changes: Partial<Settings> = {};
  for (const realm of ['user', 'admin'] as const) {
    const p = PREFIX[realm];
    const issuer = body[`${p}OIDCIssuerURL`];
    const secret = body[`${p}OIDCClientSecret`] ?? '';
    const removeSecret = body[`${p}OIDCClientSecretRemove`] === true;
    const secretKey = OIDC_SECRET_SETTINGS[realm];
    // Kept as written, trailing slash and all: the issuer must equal the provider's own exactly.
    if (issuer !== undefined) changes[`${p}OIDCIssuerURL`] = issuer;
    const clientId = body[`${p}OIDCClientID`];
    if (clientId !== undefined) changes[`${p}OIDCClientID`] = clientId;
    const displayName = body[`${p}OIDCDisplayName`];
    if (displayName !== undefined) changes[`${p}OIDCDisplayName`] = displayName;
    const userNameClaim = body[`${p}OIDCUserNameClaim`];
    if (userNameClaim !== undefined) {
      changes[`${p}OIDCUserNameClaim`] = userNameClaim === '' ? OIDC_DEFAULT_USER_NAME_CLAIM : userNameClaim;
    }
    const groupsClaim = body[`${p}OIDCGroupsClaim`];
    if (groupsClaim !== undefined) changes[`${p}OIDCGroupsClaim`] = groupsClaim;
    const scopes = body[`${p}OIDCScopes`];
    if (scopes !== undefined) changes[`${p}OIDCScopes`] = requestedScopes(scopes).join(' ');

    if (removeSecret && secret !== '') {
      throw new BadRequestError({ extra: `${p}OIDCClientSecret: give a new secret or remove it, not both` });
    }
    if (removeSecret) changes[secretKey] = '';
    else if (secret !== '') changes[secretKey] = ctx.secrets.seal(secret, sealedSettingContext(secretKey));
    else if (
      issuer !== undefined &&
      issuer !== '' &&
      current[secretKey] !== '' &&
      originOf(issuer) !== originOf(current[`${p}OIDCIssuerURL`])
    ) {
      throw new BadRequestError({
        extra: `${p}OIDCClientSecret: re-enter the client secret when the issuer moves to another host`,
      });
    }
  }
  return changes;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
