import {
  SAML_FILE_FIELDS,
  type AuthenticationSettings,
  type AuthenticationSettingsBody,
  type SettingsConfigBody,
  type SettingsCustomizeBody,
  type SettingsRecord,
} from '@postern/protocol';
import type { SamlRealm } from './api';

/*
 * Form values of each settings section, made from what the server says and turned back into the
 * request bodies. Sections that share an endpoint send the stored values of the others, so saving
 * one section never saves another's unsaved edits.
 */

/** IP discovery (spec: DiscoverIP, DiscoverIPURL; plus the dual-stack URLs and the unattested-address trust). */
export type IpDiscoveryValues = Pick<
  SettingsRecord,
  'DiscoverIP' | 'DiscoverIPURL' | 'DiscoverIPv4URL' | 'DiscoverIPv6URL' | 'DiscoverIPTrustUnattested'
>;
/** Kiosk session duration in minutes; '' while the field is empty. */
export interface KioskValues {
  KioskSessionDuration: number | '';
}
/** Logging: DebugMode and the GELF listener. */
export type LoggingValues = Pick<SettingsRecord, 'DebugMode' | 'GELFListenerURL'>;
/** Branding: accent, accessibility mode and the two logos (data: URLs, '' for none). */
export type BrandingValues = Pick<SettingsRecord, 'Accent' | 'HighAccessibility' | 'Logo' | 'LightModeLogo'>;
/** UI: the new user dashboard. */
export type UiValues = Pick<SettingsRecord, 'NewUserDashboard'>;

export const ipDiscoveryValues = (r: SettingsRecord): IpDiscoveryValues => ({
  DiscoverIP: r.DiscoverIP,
  DiscoverIPURL: r.DiscoverIPURL,
  DiscoverIPv4URL: r.DiscoverIPv4URL,
  DiscoverIPv6URL: r.DiscoverIPv6URL,
  DiscoverIPTrustUnattested: r.DiscoverIPTrustUnattested,
});
export const kioskValues = (r: SettingsRecord): KioskValues => ({ KioskSessionDuration: r.KioskSessionDuration });
export const loggingValues = (r: SettingsRecord): LoggingValues => ({
  DebugMode: r.DebugMode,
  GELFListenerURL: r.GELFListenerURL,
});
export const brandingValues = (r: SettingsRecord): BrandingValues => ({
  Accent: r.Accent,
  HighAccessibility: r.HighAccessibility,
  Logo: r.Logo,
  LightModeLogo: r.LightModeLogo,
});
export const uiValues = (r: SettingsRecord): UiValues => ({ NewUserDashboard: r.NewUserDashboard });

/** The config body: the stored values with one section's change over them. */
export function configBody(
  record: SettingsRecord,
  change: Partial<Omit<SettingsConfigBody, 'KioskSessionDuration'>> & { KioskSessionDuration?: number | '' },
): SettingsConfigBody {
  const merged = {
    DiscoverIP: record.DiscoverIP,
    DiscoverIPURL: record.DiscoverIPURL,
    ...loggingValues(record),
    ...kioskValues(record),
    ...change,
  };
  const body: SettingsConfigBody = {
    DiscoverIP: merged.DiscoverIP,
    DiscoverIPURL: merged.DiscoverIPURL.trim(),
    DebugMode: merged.DebugMode,
    GELFListenerURL: merged.GELFListenerURL.trim(),
    // The form's schema has refused '' before a body is ever built.
    KioskSessionDuration: Number(merged.KioskSessionDuration),
  };
  // Left out, the server keeps these as they are: only the IP discovery section changes them.
  if (change.DiscoverIPTrustUnattested !== undefined) body.DiscoverIPTrustUnattested = change.DiscoverIPTrustUnattested;
  if (change.DiscoverIPv4URL !== undefined) body.DiscoverIPv4URL = change.DiscoverIPv4URL.trim();
  if (change.DiscoverIPv6URL !== undefined) body.DiscoverIPv6URL = change.DiscoverIPv6URL.trim();
  return body;
}

/** The customise body: stored values with one section's change; a logo is sent only when it changed. */
export function customiseBody(
  record: SettingsRecord,
  change: Partial<BrandingValues & UiValues>,
): SettingsCustomizeBody {
  const merged = { ...brandingValues(record), ...uiValues(record), ...change };
  const body: SettingsCustomizeBody = {
    Accent: merged.Accent,
    HighAccessibility: merged.HighAccessibility,
    NewUserDashboard: merged.NewUserDashboard,
  };
  // The server keeps a logo left out and removes one sent as null.
  if (merged.Logo !== record.Logo) body.Logo = merged.Logo === '' ? null : merged.Logo;
  if (merged.LightModeLogo !== record.LightModeLogo) {
    body.LightModeLogo = merged.LightModeLogo === '' ? null : merged.LightModeLogo;
  }
  return body;
}

/** A SAML file field's name: the user realm's, or the admin realm's with its "Admin" prefix. */
export type SamlFileField = `${'' | 'Admin'}${(typeof SAML_FILE_FIELDS)[number]}`;

/** The prefix of a realm's settings names. */
export const realmPrefix = (realm: SamlRealm): '' | 'Admin' => (realm === 'admin' ? 'Admin' : '');

/** What the admin did to a stored file: chose new content, asked to remove it, or neither. */
export interface FilePick {
  /** The chosen file's name, shown next to the field. */
  fileName: string | null;
  /** The chosen file's text; null when none was chosen. */
  content: string | null;
  remove: boolean;
}
export const UNCHANGED_FILE: FilePick = { fileName: null, content: null, remove: false };

/** The OpenID Connect settings of one realm that the form edits as text, by their names without prefix. */
const OIDC_TEXT_FIELDS = [
  'OIDCIssuerURL',
  'OIDCClientID',
  'OIDCDisplayName',
  'OIDCUserNameClaim',
  'OIDCGroupsClaim',
  'OIDCScopes',
] as const;
/** An OpenID Connect text field's name: the user realm's, or the admin realm's with its "Admin" prefix. */
export type OidcTextField = `${'' | 'Admin'}${(typeof OIDC_TEXT_FIELDS)[number]}`;
const OIDC_FIELDS: readonly OidcTextField[] = [
  ...OIDC_TEXT_FIELDS,
  ...OIDC_TEXT_FIELDS.map((field) => `Admin${field}` as const),
];

/**
 * A realm's client secret as the form holds it: the stored one is never shown, so the field starts
 * empty ('' keeps the stored secret), and removing the stored one is a request of its own.
 */
export type OidcSecretValues = Record<`${'' | 'Admin'}OIDCClientSecret`, string> &
  Record<`${'' | 'Admin'}OIDCClientSecretRemove`, boolean>;

/** The Authentication section's values: URLs and switches as stored, files as picks, secrets as typed. */
export type AuthenticationValues = Pick<
  AuthenticationSettings,
  | 'SAMLMetadataURL'
  | 'AdminSAMLMetadataURL'
  | 'PublicURL'
  | 'LDAPURL'
  | 'LDAPStartTLS'
  | 'LDAPSkipVerifyTLS'
  | 'UserPasskeySignIn'
  | 'AdminPasskeySignIn'
> &
  Record<SamlFileField, FilePick> &
  Pick<AuthenticationSettings, OidcTextField> &
  OidcSecretValues;

const FILE_FIELDS: readonly SamlFileField[] = [
  ...SAML_FILE_FIELDS,
  ...SAML_FILE_FIELDS.map((field) => `Admin${field}` as const),
];

export function authenticationValues(s: AuthenticationSettings): AuthenticationValues {
  const files = Object.fromEntries(FILE_FIELDS.map((field) => [field, UNCHANGED_FILE])) as Record<
    SamlFileField,
    FilePick
  >;
  return {
    SAMLMetadataURL: s.SAMLMetadataURL,
    AdminSAMLMetadataURL: s.AdminSAMLMetadataURL,
    PublicURL: s.PublicURL,
    LDAPURL: s.LDAPURL,
    LDAPStartTLS: s.LDAPStartTLS,
    LDAPSkipVerifyTLS: s.LDAPSkipVerifyTLS,
    UserPasskeySignIn: s.UserPasskeySignIn,
    AdminPasskeySignIn: s.AdminPasskeySignIn,
    ...files,
    ...(Object.fromEntries(OIDC_FIELDS.map((field) => [field, s[field]])) as Pick<
      AuthenticationSettings,
      OidcTextField
    >),
    OIDCClientSecret: '',
    OIDCClientSecretRemove: false,
    AdminOIDCClientSecret: '',
    AdminOIDCClientSecretRemove: false,
  };
}

/**
 * The authentication body: a file is sent with Set when chosen, with Remove when removed, else not at
 * all; a client secret only when one was typed (else the stored one stays), its Remove when asked.
 */
export function authenticationBody(values: AuthenticationValues): AuthenticationSettingsBody {
  const body: AuthenticationSettingsBody = {
    SAMLMetadataURL: values.SAMLMetadataURL.trim(),
    AdminSAMLMetadataURL: values.AdminSAMLMetadataURL.trim(),
    PublicURL: values.PublicURL.trim(),
    LDAPURL: values.LDAPURL.trim(),
    LDAPStartTLS: values.LDAPStartTLS,
    LDAPSkipVerifyTLS: values.LDAPSkipVerifyTLS,
    UserPasskeySignIn: values.UserPasskeySignIn,
    AdminPasskeySignIn: values.AdminPasskeySignIn,
  };
  for (const field of FILE_FIELDS) {
    const pick = values[field];
    if (pick.remove) body[`${field}Remove`] = true;
    else if (pick.content !== null) {
      body[field] = pick.content;
      body[`${field}Set`] = true;
    }
  }
  for (const field of OIDC_FIELDS) body[field] = values[field].trim();
  for (const p of ['', 'Admin'] as const) {
    // Provider secrets hold no spaces; one at either end is a copy-and-paste slip the field hides.
    const secret = values[`${p}OIDCClientSecret`].trim();
    // A new secret replaces the stored one anyway, and the server refuses both at once.
    if (secret !== '') body[`${p}OIDCClientSecret`] = secret;
    else if (values[`${p}OIDCClientSecretRemove`]) body[`${p}OIDCClientSecretRemove`] = true;
  }
  return body;
}
