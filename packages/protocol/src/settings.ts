import { z } from 'zod';
import { dataEnvelope } from './envelope.js';
import { ErrorCodes } from './errors.js';
import { emptyOr, GelfUrl, HttpUrl, LdapUrl } from './common.js';
import { ACCENTS, KIOSK_SESSION_MINUTES_MAX, KIOSK_SESSION_MINUTES_MIN } from './limits.js';
import { OIDC_SETTINGS_BODY_FIELDS, OIDC_SETTINGS_FIELDS } from './oidc.js';

/** Largest logo accepted, in bytes of image data (also the largest stored after re-encoding). */
export const LOGO_MAX_BYTES = 512 * 1024;
/** Widest and highest logo accepted, in pixels: read from the image's header before it is decoded. */
export const LOGO_MAX_SIDE_PIXELS = 4096;
/**
 * Most pixels a logo may have in all (2048 × 2048, or 4096 × 1024 for a banner), also read from the
 * header: it bounds the time and memory a decode takes, which the side limit alone leaves at 16 Mpx.
 */
export const LOGO_MAX_PIXELS = 2048 * 2048;

/** GET /api/admin/settings */
export const SettingsRecord = z.object({
  /** The installed licence key, or '' when none. */
  License: z.string(),
  /** Licence keys the store holds (at most one is in force). */
  CachedLicenses: z.array(z.string()),
  DiscoverIP: z.boolean(),
  DiscoverIPURL: z.string(),
  /**
   * A discovery URL whose host name has only an IPv4 address (an A record and no AAAA), '' for none:
   * the browser learns its IPv4 address there, so a grant can open it beside an IPv6 one.
   */
  DiscoverIPv4URL: z.string(),
  /** The same with only an IPv6 address (AAAA, no A): the browser's IPv6 address. */
  DiscoverIPv6URL: z.string(),
  /** Grants also open addresses a browser reports without the built-in responder's attestation. */
  DiscoverIPTrustUnattested: z.boolean(),
  DebugMode: z.boolean(),
  GELFListenerURL: z.string(),
  KioskSessionDuration: z.number().int(),
  Accent: z.enum(ACCENTS),
  /** The dark-mode logo as a data: URL, or '' when none. */
  Logo: z.string(),
  LightModeLogo: z.string(),
  HighAccessibility: z.boolean(),
  NewUserDashboard: z.boolean(),
});
export type SettingsRecord = z.infer<typeof SettingsRecord>;
export const SettingsResponse = dataEnvelope(SettingsRecord);

/** PUT /api/admin/settings/config */
export const SettingsConfigBody = z.object({
  DiscoverIP: z.boolean(),
  DiscoverIPURL: emptyOr(HttpUrl),
  /** The IPv4-only discovery URL ('' for none); left out, it stays as it is. */
  DiscoverIPv4URL: emptyOr(HttpUrl).optional(),
  /** The IPv6-only discovery URL ('' for none); left out, it stays as it is. */
  DiscoverIPv6URL: emptyOr(HttpUrl).optional(),
  /**
   * Accept browser-reported addresses that carry no attestation (needed for an external
   * DiscoverIPURL, which cannot attest). Risky: a user can then open any address. Left out, it stays
   * as it is.
   */
  DiscoverIPTrustUnattested: z.boolean().optional(),
  DebugMode: z.boolean(),
  GELFListenerURL: emptyOr(GelfUrl),
  KioskSessionDuration: z
    .number()
    .int(ErrorCodes.kioskDurationRange)
    .min(KIOSK_SESSION_MINUTES_MIN, ErrorCodes.kioskDurationRange)
    .max(KIOSK_SESSION_MINUTES_MAX, ErrorCodes.kioskDurationRange),
});
export type SettingsConfigBody = z.infer<typeof SettingsConfigBody>;

/**
 * A PNG or JPEG as a base64 data: URL. The server also decodes it (refusing what is not the image the
 * URL claims, larger than LOGO_MAX_SIDE_PIXELS a side or of more than LOGO_MAX_PIXELS) and stores it
 * re-encoded.
 */
export const LogoDataUrl = z
  .string()
  .regex(/^data:image\/(png|jpeg);base64,[A-Za-z0-9+/]+=*$/, ErrorCodes.logoFormat)
  .refine((value) => (value.length - value.indexOf(',') - 1) * 0.75 <= LOGO_MAX_BYTES, ErrorCodes.logoTooLarge);

/** PUT /api/admin/settings/customize: a logo left out stays as it is; null removes it. */
export const SettingsCustomizeBody = z.object({
  Accent: z.enum(ACCENTS),
  HighAccessibility: z.boolean(),
  NewUserDashboard: z.boolean(),
  Logo: LogoDataUrl.nullable().optional(),
  LightModeLogo: LogoDataUrl.nullable().optional(),
});
export type SettingsCustomizeBody = z.infer<typeof SettingsCustomizeBody>;

/** The files each SAML realm needs, by their settings name (the admin realm prefixes "Admin"). */
export const SAML_FILE_FIELDS = ['SAMLMetadataFile', 'SAMLKeyFile', 'SAMLCertFile'] as const;

/** GET /api/admin/settings/authentication: which files are stored, never the private keys. */
export const AuthenticationSettings = z.object({
  SAMLMetadataURL: z.string(),
  SAMLMetadataFileSet: z.boolean(),
  SAMLKeyFileSet: z.boolean(),
  SAMLCertFileSet: z.boolean(),
  /** The users' SP certificate (public), for giving to the IdP; '' when none. */
  SAMLCert: z.string(),
  AdminSAMLMetadataURL: z.string(),
  AdminSAMLMetadataFileSet: z.boolean(),
  AdminSAMLKeyFileSet: z.boolean(),
  AdminSAMLCertFileSet: z.boolean(),
  AdminSAMLCert: z.string(),
  PublicURL: z.string(),
  LDAPURL: z.string(),
  LDAPStartTLS: z.boolean(),
  LDAPSkipVerifyTLS: z.boolean(),
  /** SAML sign-in is usable: metadata, key, certificate and public URL are all there. */
  UserSAMLConfigured: z.boolean(),
  AdminSAMLConfigured: z.boolean(),
  /** OpenID Connect for users and for admins (oidc.ts). */
  ...OIDC_SETTINGS_FIELDS,
  /** Users may sign in with a passkey alone (webauthn.ts); on by default. */
  UserPasskeySignIn: z.boolean(),
  /** Admins may sign in with a passkey alone; off until an admin turns it on. */
  AdminPasskeySignIn: z.boolean(),
});
export type AuthenticationSettings = z.infer<typeof AuthenticationSettings>;
export const AuthenticationSettingsResponse = dataEnvelope(AuthenticationSettings);

/** A stored file's new content (with Set) or its removal (with Remove); neither leaves it alone. */
function fileField() {
  return {
    content: z.string().max(1_000_000).optional(),
    set: z.boolean().optional(),
    remove: z.boolean().optional(),
  };
}
const userFile = fileField();

/** PUT /api/admin/settings/authentication */
export const AuthenticationSettingsBody = z.object({
  SAMLMetadataURL: emptyOr(HttpUrl),
  SAMLMetadataFile: userFile.content,
  SAMLMetadataFileSet: userFile.set,
  SAMLMetadataFileRemove: userFile.remove,
  SAMLKeyFile: userFile.content,
  SAMLKeyFileSet: userFile.set,
  SAMLKeyFileRemove: userFile.remove,
  SAMLCertFile: userFile.content,
  SAMLCertFileSet: userFile.set,
  SAMLCertFileRemove: userFile.remove,
  AdminSAMLMetadataURL: emptyOr(HttpUrl),
  AdminSAMLMetadataFile: userFile.content,
  AdminSAMLMetadataFileSet: userFile.set,
  AdminSAMLMetadataFileRemove: userFile.remove,
  AdminSAMLKeyFile: userFile.content,
  AdminSAMLKeyFileSet: userFile.set,
  AdminSAMLKeyFileRemove: userFile.remove,
  AdminSAMLCertFile: userFile.content,
  AdminSAMLCertFileSet: userFile.set,
  AdminSAMLCertFileRemove: userFile.remove,
  PublicURL: emptyOr(HttpUrl),
  LDAPURL: emptyOr(LdapUrl),
  LDAPStartTLS: z.boolean(),
  LDAPSkipVerifyTLS: z.boolean(),
  /** OpenID Connect for users and for admins (oidc.ts); each field left out stays as it is. */
  ...OIDC_SETTINGS_BODY_FIELDS,
  /** Left out: stays as it is. */
  UserPasskeySignIn: z.boolean().optional(),
  AdminPasskeySignIn: z.boolean().optional(),
});
export type AuthenticationSettingsBody = z.infer<typeof AuthenticationSettingsBody>;

/** POST /api/admin/settings/generate{User,Admin}SamlKeyCert: the new certificate (the key stays on the server). */
export const SamlKeyCertResponse = dataEnvelope(z.object({ Certificate: z.string() }));
