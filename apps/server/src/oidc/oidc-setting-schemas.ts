import { z } from 'zod';
import { OIDC_DEFAULT_GROUPS_CLAIM, OIDC_DEFAULT_SCOPES, OIDC_DEFAULT_USER_NAME_CLAIM } from '@postern/protocol';

/**
 * How the store keeps one realm's OpenID Connect settings (settings/settings.ts spreads them in with
 * the other settings): each with its default, falling back to it when a stored value does not parse.
 */
export const OIDC_SETTING_SCHEMAS = {
  OIDCIssuerURL: z.string().catch(''),
  OIDCClientID: z.string().catch(''),
  /** Sealed (secrets/secret-box.ts, bound to its settings row); '' for none. */
  OIDCClientSecret: z.string().catch(''),
  OIDCDisplayName: z.string().catch(''),
  OIDCUserNameClaim: z.string().min(1).catch(OIDC_DEFAULT_USER_NAME_CLAIM),
  OIDCGroupsClaim: z.string().catch(OIDC_DEFAULT_GROUPS_CLAIM),
  OIDCScopes: z.string().min(1).catch(OIDC_DEFAULT_SCOPES),
};

type OidcSettingSchemas = typeof OIDC_SETTING_SCHEMAS;

/** The same schemas under the admin realm's names (`AdminOIDCIssuerURL`, …). */
export function prefixedOidcSchemas<P extends string>(
  prefix: P,
): { [K in keyof OidcSettingSchemas as `${P}${K}`]: OidcSettingSchemas[K] } {
  return Object.fromEntries(
    Object.entries(OIDC_SETTING_SCHEMAS).map(([key, schema]) => [`${prefix}${key}`, schema]),
  ) as { [K in keyof OidcSettingSchemas as `${P}${K}`]: OidcSettingSchemas[K] };
}
