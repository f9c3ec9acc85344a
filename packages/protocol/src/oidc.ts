import { z } from 'zod';
import { dataEnvelope } from './envelope.js';
import { ErrorCodes } from './errors.js';
import { adminUrl, emptyOr, NO_CONTROL_CHARACTERS, NO_CONTROL_CHARACTERS_MESSAGE } from './common.js';

/** The two OpenID Connect realms: the users' provider and the admins' own, configured apart. */
export const OIDC_REALMS = ['user', 'admin'] as const;
export const OidcRealm = z.enum(OIDC_REALMS);
export type OidcRealm = z.infer<typeof OidcRealm>;

/** Scopes asked for when the administrator names none; `openid` is always asked for. */
export const OIDC_DEFAULT_SCOPES = 'openid profile email groups';
/** The claim whose value is the user name when the administrator names none. */
export const OIDC_DEFAULT_USER_NAME_CLAIM = 'preferred_username';
/** The claim holding the group names when the administrator names none ('' maps no groups). */
export const OIDC_DEFAULT_GROUPS_CLAIM = 'groups';

/** True for a host name that is this machine's loopback: the only place plain-http issuers are allowed. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * An OpenID Connect issuer identifier: https with a host and no query or fragment (OpenID Connect
 * Discovery 1.0, section 2); plain http only on a loopback address, for development and tests,
 * because the client secret and the tokens travel to the provider's endpoints. Otherwise
 * err.urlMustBeHttps; the usual rules of admin URLs too (endpoint.ts).
 */
export const OidcIssuerUrl = adminUrl(['http', 'https'], ErrorCodes.urlMustBeHttps).superRefine((value, ctx) => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return;
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    ctx.addIssue({ code: 'custom', message: ErrorCodes.urlMustBeHttps });
  } else if (url.search !== '' || url.hash !== '' || value.includes('?') || value.includes('#')) {
    ctx.addIssue({ code: 'custom', message: ErrorCodes.urlInvalid });
  }
});

/** A claim name: printable, no spaces (URIs such as Entra ID's claim names included). */
const ClaimName = z
  .string()
  .trim()
  .max(200)
  .regex(/^[\x21-\x7e]*$/, 'a claim name has no spaces or control characters');

/**
 * Space-separated scopes, each of RFC 6749's scope-token characters; at most 30. The server always
 * adds `openid`.
 */
const Scopes = z
  .string()
  .trim()
  .max(1000)
  .regex(/^[\x21\x23-\x5b\x5d-\x7e]*(?: +[\x21\x23-\x5b\x5d-\x7e]+)*$/, 'scopes are separated by spaces')
  .refine((value) => value.split(/ +/).length <= 30, 'at most 30 scopes');

/** A short text the login page shows on the button (`Sign in with …`); '' shows a generic one. */
const DisplayName = z.string().trim().max(100).regex(NO_CONTROL_CHARACTERS, NO_CONTROL_CHARACTERS_MESSAGE);

/** `fields` with every key prefixed: the admin realm's settings are the users' names with `Admin` before them. */
function prefixed<P extends string, T extends Record<string, z.ZodType>>(
  prefix: P,
  fields: T,
): { [K in keyof T & string as `${P}${K}`]: T[K] } {
  return Object.fromEntries(Object.entries(fields).map(([key, schema]) => [`${prefix}${key}`, schema])) as {
    [K in keyof T & string as `${P}${K}`]: T[K];
  };
}

/** One realm's OpenID Connect settings as GET /api/admin/settings/authentication shows them. */
const REALM_RECORD = {
  OIDCIssuerURL: z.string(),
  OIDCClientID: z.string(),
  /** The client secret is stored (sealed); it is never shown. */
  OIDCClientSecretSet: z.boolean(),
  OIDCDisplayName: z.string(),
  OIDCUserNameClaim: z.string(),
  OIDCGroupsClaim: z.string(),
  OIDCScopes: z.string(),
  /** The redirect URI to register at the provider (from PublicURL); '' without a PublicURL. */
  OIDCRedirectURL: z.string(),
};

/** The OpenID Connect fields of the authentication settings (settings.ts spreads them in). */
export const OIDC_SETTINGS_FIELDS = {
  ...REALM_RECORD,
  ...prefixed('Admin', REALM_RECORD),
  /** Sign-in through the users' provider is usable: issuer, client ID and secret, and PublicURL. */
  UserOIDCConfigured: z.boolean(),
  AdminOIDCConfigured: z.boolean(),
};

/** One realm's fields of PUT /api/admin/settings/authentication; each left out stays as it is. */
const REALM_BODY = {
  OIDCIssuerURL: emptyOr(OidcIssuerUrl).optional(),
  OIDCClientID: z.string().trim().max(255).regex(NO_CONTROL_CHARACTERS, NO_CONTROL_CHARACTERS_MESSAGE).optional(),
  /** Write-only: a new secret ('' or left out keeps the stored one). */
  OIDCClientSecret: z.string().max(1024).regex(NO_CONTROL_CHARACTERS, NO_CONTROL_CHARACTERS_MESSAGE).optional(),
  /** Removes the stored secret. */
  OIDCClientSecretRemove: z.boolean().optional(),
  OIDCDisplayName: DisplayName.optional(),
  /** '' puts back the default (preferred_username). */
  OIDCUserNameClaim: ClaimName.optional(),
  /** '' maps no groups. */
  OIDCGroupsClaim: ClaimName.optional(),
  /** '' puts back the default scopes. */
  OIDCScopes: Scopes.optional(),
};

/** The OpenID Connect fields of PUT /api/admin/settings/authentication (settings.ts spreads them in). */
export const OIDC_SETTINGS_BODY_FIELDS = { ...REALM_BODY, ...prefixed('Admin', REALM_BODY) };

/** POST /api/admin/settings/oidc/test: which realm's stored configuration to try. */
export const OidcTestBody = z.object({ Realm: OidcRealm });
export type OidcTestBody = z.infer<typeof OidcTestBody>;

/**
 * What trying a realm's provider found. `Problems` stop sign-in (each says what is wrong);
 * `Warnings` do not. The client secret can only be proven by signing in.
 */
export const OidcTestResult = z.object({
  Realm: OidcRealm,
  Ok: z.boolean(),
  Problems: z.array(z.string()),
  Warnings: z.array(z.string()),
  /** The issuer the provider's metadata names, once read. */
  Issuer: z.string().nullable(),
  /** The provider offers RP-initiated logout (end_session_endpoint). */
  EndSession: z.boolean(),
});
export type OidcTestResult = z.infer<typeof OidcTestResult>;
export const OidcTestResponse = dataEnvelope(OidcTestResult);

/**
 * POST /api/logout and /api/admin/logout: null as always, or, for a session signed in through an
 * OpenID Connect provider that offers RP-initiated logout, the provider's logout URL, where the
 * browser goes next to end its session there too (and comes back to the login page).
 */
export const LogoutResponse = dataEnvelope(z.object({ EndSessionURL: z.string() }).nullable());
export type LogoutResponse = z.infer<typeof LogoutResponse>;
