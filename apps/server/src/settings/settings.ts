import type { Kysely } from 'kysely';
import { z } from 'zod';
import {
  ACCENTS,
  DEFAULT_ACCENT,
  KIOSK_SESSION_MINUTES_DEFAULT,
  KIOSK_SESSION_MINUTES_MAX,
  KIOSK_SESSION_MINUTES_MIN,
} from '@postern/protocol';
import type { Database } from '../store/schema.js';
import { OIDC_SETTING_SCHEMAS, prefixedOidcSchemas } from '../oidc/oidc-setting-schemas.js';

/**
 * Settings an administrator changes at run time, kept in the store (one row each, JSON values) so
 * every replica sees the same. Each has a default; a stored value that no longer parses falls back to
 * the default instead of breaking sign-in.
 */
const SETTING_SCHEMAS = {
  Accent: z.enum(ACCENTS).catch(DEFAULT_ACCENT),
  HighAccessibility: z.boolean().catch(false),
  NewUserDashboard: z.boolean().catch(true),
  DiscoverIP: z.boolean().catch(false),
  DiscoverIPURL: z.string().catch(''),
  /**
   * Dual stack: discovery URLs on a host name with only an IPv4 (A) or only an IPv6 (AAAA) address,
   * '' for none. The browser learns its address of each family there (ip-discovery/discovery-url.ts).
   */
  DiscoverIPv4URL: z.string().catch(''),
  DiscoverIPv6URL: z.string().catch(''),
  /**
   * Grants accept browser-reported addresses without the built-in responder's attestation (for an
   * external DiscoverIPURL, which cannot attest). Off: a user could otherwise open any address.
   */
  DiscoverIPTrustUnattested: z.boolean().catch(false),
  KioskSessionDuration: z
    .number()
    .int()
    .min(KIOSK_SESSION_MINUTES_MIN)
    .max(KIOSK_SESSION_MINUTES_MAX)
    .catch(KIOSK_SESSION_MINUTES_DEFAULT),
  DebugMode: z.boolean().catch(false),
  GELFListenerURL: z.string().catch(''),
  /** The installed licence key ('' for none); verified whenever it is read. */
  License: z.string().catch(''),
  /** Branding: PNG or JPEG data: URLs, '' for none. */
  Logo: z.string().catch(''),
  LightModeLogo: z.string().catch(''),
  /** Directory sign-in. */
  LDAPURL: z.string().catch(''),
  LDAPStartTLS: z.boolean().catch(false),
  LDAPSkipVerifyTLS: z.boolean().catch(false),
  /** The URL people reach Postern at; SAML needs it for its endpoints. */
  PublicURL: z.string().catch(''),
  /** SAML for users. The SP key is sealed (see secrets/secret-box.ts); the rest is public. */
  SAMLMetadataURL: z.string().catch(''),
  SAMLMetadataFile: z.string().catch(''),
  SAMLKeyFile: z.string().catch(''),
  SAMLCertFile: z.string().catch(''),
  /** SAML for admins, configured separately. */
  AdminSAMLMetadataURL: z.string().catch(''),
  AdminSAMLMetadataFile: z.string().catch(''),
  AdminSAMLKeyFile: z.string().catch(''),
  AdminSAMLCertFile: z.string().catch(''),
  /** OpenID Connect for users (oidc/oidc-settings.ts). The client secret is sealed; the rest is public. */
  ...OIDC_SETTING_SCHEMAS,
  /** OpenID Connect for admins, configured separately. */
  ...prefixedOidcSchemas('Admin'),
  /** Signing in with a passkey alone (webauthn/): on for users, off for admins until one turns it on. */
  UserPasskeySignIn: z.boolean().catch(true),
  AdminPasskeySignIn: z.boolean().catch(false),
};

const SettingsSchema = z.object(SETTING_SCHEMAS);
export type Settings = z.infer<typeof SettingsSchema>;
export type SettingKey = keyof Settings;

/** Every setting's default, worked out once (each `.catch` builds an error to get there). */
const DEFAULTS: Settings = SettingsSchema.parse({});

/**
 * All settings in one query, defaults filled in. Read on every status call, so only the stored keys
 * are parsed; the defaults were parsed once.
 */
export async function readSettings(db: Kysely<Database>): Promise<Settings> {
  const rows = await db.selectFrom('settings').select(['key', 'value']).execute();
  const settings: Record<string, unknown> = { ...DEFAULTS };
  for (const row of rows) {
    if (row.key in SETTING_SCHEMAS) {
      settings[row.key] = SETTING_SCHEMAS[row.key as SettingKey].parse(parseJson(row.value));
    }
  }
  return settings as Settings;
}

/** One setting, default filled in: for hot paths that need one value, not the logos and SAML files. */
export async function readSetting<K extends SettingKey>(db: Kysely<Database>, key: K): Promise<Settings[K]> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
  return settingValue(key, row?.value);
}

/** A setting from its stored JSON text (undefined when no row): the default when absent or unparsable. */
export function settingValue<K extends SettingKey>(key: K, stored: string | null | undefined): Settings[K] {
  return stored === undefined || stored === null
    ? DEFAULTS[key]
    : (SETTING_SCHEMAS[key].parse(parseJson(stored)) as Settings[K]);
}

export async function writeSetting<K extends SettingKey>(
  db: Kysely<Database>,
  key: K,
  value: Settings[K],
  now: number,
): Promise<void> {
  const json = JSON.stringify(value);
  await db
    .insertInto('settings')
    .values({ key, value: json, updatedAt: now })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value: json, updatedAt: now }))
    .execute();
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
