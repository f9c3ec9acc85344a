import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import {
  AuditActions,
  type AuthenticationSettings,
  type AuthenticationSettingsBody,
  type SettingsConfigBody,
  type SettingsCustomizeBody,
  type SettingsRecord,
} from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import type { Admin } from '../admins/admins.repo.js';
import { BadRequestError } from '../errors.js';
import { recordAudit } from '../audit/audit.js';
import { createSelfSignedCertificate } from '../lib/x509.js';
import type { SecretContext } from '../secrets/secret-box.js';
import { readSetting, readSettings, writeSetting, type SettingKey, type Settings } from './settings.js';
import { sanitiseLogo } from './logo-image.js';
import type { LogoCodec } from './logo-codec.js';
import { oidcSettingChanges, oidcSettingsRecord } from '../oidc/oidc-settings.js';

/** The two SAML realms and the prefix of their settings. */
export type SamlRealm = 'user' | 'admin';
const PREFIX: Record<SamlRealm, '' | 'Admin'> = { user: '', admin: 'Admin' };

/** Years a generated SP certificate is valid; IdPs pin it, so it should not expire soon. */
const SP_CERTIFICATE_DAYS = 10 * 365;

/** GET /api/admin/settings */
export async function settingsRecord(ctx: AppContext): Promise<SettingsRecord> {
  const s = await readSettings(ctx.db);
  return {
    License: s.License,
    CachedLicenses: s.License === '' ? [] : [s.License],
    DiscoverIP: s.DiscoverIP,
    DiscoverIPURL: s.DiscoverIPURL,
    DiscoverIPv4URL: s.DiscoverIPv4URL,
    DiscoverIPv6URL: s.DiscoverIPv6URL,
    DiscoverIPTrustUnattested: s.DiscoverIPTrustUnattested,
    DebugMode: s.DebugMode,
    GELFListenerURL: s.GELFListenerURL,
    KioskSessionDuration: s.KioskSessionDuration,
    Accent: s.Accent,
    Logo: s.Logo,
    LightModeLogo: s.LightModeLogo,
    HighAccessibility: s.HighAccessibility,
    NewUserDashboard: s.NewUserDashboard,
  };
}

/**
 * PUT /api/admin/settings/config; the caller applies DebugMode and the GELF target afterwards.
 * DiscoverIPTrustUnattested, DiscoverIPv4URL and DiscoverIPv6URL left out stay as they are; a change
 * to the trust is named in the audit entry, because it decides which addresses users can open.
 */
export async function updateConfig(ctx: AppContext, actor: Admin, body: SettingsConfigBody): Promise<void> {
  const changes: Partial<Settings> = {
    DiscoverIP: body.DiscoverIP,
    DiscoverIPURL: body.DiscoverIPURL,
    DebugMode: body.DebugMode,
    GELFListenerURL: body.GELFListenerURL,
    KioskSessionDuration: body.KioskSessionDuration,
  };
  if (body.DiscoverIPv4URL !== undefined) changes.DiscoverIPv4URL = body.DiscoverIPv4URL;
  if (body.DiscoverIPv6URL !== undefined) changes.DiscoverIPv6URL = body.DiscoverIPv6URL;
  let what = 'config';
  const trust = body.DiscoverIPTrustUnattested;
  if (trust !== undefined) {
    changes.DiscoverIPTrustUnattested = trust;
    if (trust !== (await readSetting(ctx.db, 'DiscoverIPTrustUnattested'))) {
      what = `config: DiscoverIPTrustUnattested turned ${trust ? 'on' : 'off'}`;
    }
  }
  await writeAll(ctx, actor, what, changes);
}

/**
 * PUT /api/admin/settings/customize: logos are decoded, bounded and stored re-encoded (logo-image.ts)
 * by `logos`, the app's logo worker.
 */
export async function updateCustomisation(
  ctx: AppContext,
  actor: Admin,
  body: SettingsCustomizeBody,
  logos: LogoCodec,
): Promise<void> {
  const changes: Partial<Settings> = {
    Accent: body.Accent,
    HighAccessibility: body.HighAccessibility,
    NewUserDashboard: body.NewUserDashboard,
  };
  for (const field of ['Logo', 'LightModeLogo'] as const) {
    const value = body[field];
    if (value === undefined) continue;
    changes[field] = value === null ? '' : await sanitiseLogo(logos, field, value);
  }
  await writeAll(ctx, actor, 'customize', changes);
}

/** A logo served to browsers: its bytes, type and a tag that changes with it. */
export interface Logo {
  bytes: Buffer;
  contentType: string;
  etag: string;
}

export function decodeLogo(dataUrl: string): Logo | null {
  const match = /^data:(image\/(?:png|jpeg));base64,(.+)$/.exec(dataUrl);
  if (match === null) return null;
  const bytes = Buffer.from(match[2] ?? '', 'base64');
  return {
    bytes,
    contentType: match[1] ?? 'image/png',
    etag: createHash('sha256').update(bytes).digest('hex').slice(0, 16),
  };
}

/** GET /api/admin/settings/authentication: which files are stored, never a private key. */
export async function authenticationSettings(ctx: AppContext): Promise<AuthenticationSettings> {
  const s = await readSettings(ctx.db);
  return {
    SAMLMetadataURL: s.SAMLMetadataURL,
    SAMLMetadataFileSet: s.SAMLMetadataFile !== '',
    SAMLKeyFileSet: s.SAMLKeyFile !== '',
    SAMLCertFileSet: s.SAMLCertFile !== '',
    SAMLCert: s.SAMLCertFile,
    AdminSAMLMetadataURL: s.AdminSAMLMetadataURL,
    AdminSAMLMetadataFileSet: s.AdminSAMLMetadataFile !== '',
    AdminSAMLKeyFileSet: s.AdminSAMLKeyFile !== '',
    AdminSAMLCertFileSet: s.AdminSAMLCertFile !== '',
    AdminSAMLCert: s.AdminSAMLCertFile,
    PublicURL: s.PublicURL,
    LDAPURL: s.LDAPURL,
    LDAPStartTLS: s.LDAPStartTLS,
    LDAPSkipVerifyTLS: s.LDAPSkipVerifyTLS,
    UserSAMLConfigured: samlConfigured(s, 'user'),
    AdminSAMLConfigured: samlConfigured(s, 'admin'),
    ...oidcSettingsRecord(s),
    UserPasskeySignIn: s.UserPasskeySignIn,
    AdminPasskeySignIn: s.AdminPasskeySignIn,
  };
}

/** SAML sign-in needs IdP metadata, an SP key and certificate, and the public URL. */
export function samlConfigured(s: Settings, realm: SamlRealm): boolean {
  const p = PREFIX[realm];
  const metadata = s[`${p}SAMLMetadataURL`] !== '' || s[`${p}SAMLMetadataFile`] !== '';
  return metadata && s[`${p}SAMLKeyFile`] !== '' && s[`${p}SAMLCertFile`] !== '' && s.PublicURL !== '';
}

/** The SP private key of a realm, opened from its sealed form, or null. */
export function samlPrivateKey(ctx: AppContext, s: Settings, realm: SamlRealm): string | null {
  const key: SettingKey = `${PREFIX[realm]}SAMLKeyFile`;
  const sealed = s[key];
  return sealed === '' ? null : ctx.secrets.open(sealed, sealedSettingContext(key));
}

/** The settings whose values are sealed: each realm's SAML SP private key and OpenID Connect client secret. */
export const SEALED_SETTINGS: readonly SettingKey[] = [
  'SAMLKeyFile',
  'AdminSAMLKeyFile',
  'OIDCClientSecret',
  'AdminOIDCClientSecret',
];

/** Where a sealed setting (a SAML SP private key) lives, bound into its ciphertext. */
export function sealedSettingContext(key: SettingKey): SecretContext {
  return { table: 'settings', column: 'value', rowId: key };
}

/**
 * PUT /api/admin/settings/authentication. Each stored file changes only with its Set flag (new
 * content) or Remove flag; private keys are sealed at rest; a key and certificate must belong together.
 */
export async function updateAuthentication(
  ctx: AppContext,
  actor: Admin,
  body: AuthenticationSettingsBody,
): Promise<void> {
  const current = await readSettings(ctx.db);
  const changes: Partial<Settings> = {
    SAMLMetadataURL: body.SAMLMetadataURL,
    AdminSAMLMetadataURL: body.AdminSAMLMetadataURL,
    PublicURL: body.PublicURL,
    LDAPURL: body.LDAPURL,
    LDAPStartTLS: body.LDAPStartTLS,
    LDAPSkipVerifyTLS: body.LDAPSkipVerifyTLS,
    ...oidcSettingChanges(ctx, current, body),
  };
  // A passkey alone signs in: turning that on or off is named in the audit entry, as the trust is.
  const turned: string[] = [];
  for (const key of ['UserPasskeySignIn', 'AdminPasskeySignIn'] as const) {
    const value = body[key];
    if (value === undefined) continue;
    changes[key] = value;
    if (value !== current[key]) turned.push(`${key} turned ${value ? 'on' : 'off'}`);
  }
  for (const realm of ['user', 'admin'] as const) {
    const p = PREFIX[realm];
    const metadata = fileChange(body, `${p}SAMLMetadataFile`, checkMetadata);
    const key = fileChange(body, `${p}SAMLKeyFile`, checkPrivateKey);
    const cert = fileChange(body, `${p}SAMLCertFile`, checkCertificate);
    if (metadata !== undefined) changes[`${p}SAMLMetadataFile`] = metadata;
    if (cert !== undefined) changes[`${p}SAMLCertFile`] = cert;
    if (key !== undefined)
      changes[`${p}SAMLKeyFile`] = key === '' ? '' : ctx.secrets.seal(key, sealedSettingContext(`${p}SAMLKeyFile`));
    const finalKey = key ?? samlPrivateKey(ctx, current, realm);
    const finalCert = cert ?? current[`${p}SAMLCertFile`];
    if (
      finalKey !== null &&
      finalKey !== '' &&
      finalCert !== '' &&
      !new X509Certificate(finalCert).checkPrivateKey(createPrivateKey(finalKey))
    ) {
      throw new BadRequestError({ extra: `${p}SAMLCertFile: the certificate does not belong to the private key` });
    }
  }
  const what = turned.length === 0 ? 'authentication' : `authentication: ${turned.join(', ')}`;
  await writeAll(ctx, actor, what, changes, AuditActions.AuthenticationSettingsUpdated);
}

/** POST /api/admin/settings/generate{User,Admin}SamlKeyCert: a new key pair replaces the realm's. */
export async function generateSamlKeyCert(ctx: AppContext, actor: Admin, realm: SamlRealm): Promise<string> {
  const s = await readSettings(ctx.db);
  const commonName = s.PublicURL === '' ? 'Postern SAML SP' : new URL(s.PublicURL).hostname;
  const { certificatePem, privateKeyPem } = createSelfSignedCertificate({
    commonName,
    days: SP_CERTIFICATE_DAYS,
    now: new Date(ctx.clock.now()),
  });
  const p = PREFIX[realm];
  await writeAll(
    ctx,
    actor,
    `${realm} SAML key and certificate`,
    {
      [`${p}SAMLCertFile`]: certificatePem,
      [`${p}SAMLKeyFile`]: ctx.secrets.seal(privateKeyPem, sealedSettingContext(`${p}SAMLKeyFile`)),
    },
    AuditActions.SamlKeysGenerated,
  );
  return certificatePem;
}

type FileField = `${'' | 'Admin'}SAML${'Metadata' | 'Key' | 'Cert'}File`;

/** The new content of a stored file: a string to set, '' to remove, undefined to leave as it is. */
function fileChange(
  body: AuthenticationSettingsBody,
  field: FileField,
  check: (field: string, content: string) => void,
): string | undefined {
  if (body[`${field}Remove`] === true) return '';
  if (body[`${field}Set`] !== true) return undefined;
  const content = (body[field] ?? '').trim();
  check(field, content);
  return `${content}\n`;
}

function checkMetadata(field: string, content: string): void {
  if (!/<(\w+:)?EntityDescriptor[\s>]/.test(content) || !/<(\w+:)?IDPSSODescriptor[\s>]/.test(content)) {
    throw new BadRequestError({
      extra: `${field}: not SAML IdP metadata (an EntityDescriptor with an IDPSSODescriptor)`,
    });
  }
}

function checkPrivateKey(field: string, content: string): void {
  try {
    if (createPrivateKey(content).asymmetricKeyType !== 'rsa') throw new Error('not RSA');
  } catch {
    throw new BadRequestError({ extra: `${field}: not an RSA private key in PEM form` });
  }
}

function checkCertificate(field: string, content: string): void {
  try {
    new X509Certificate(content);
  } catch {
    throw new BadRequestError({ extra: `${field}: not a certificate in PEM form` });
  }
}

async function writeAll(
  ctx: AppContext,
  actor: Admin,
  what: string,
  changes: Partial<Settings>,
  action:
    | typeof AuditActions.SettingsUpdated
    | typeof AuditActions.AuthenticationSettingsUpdated
    | typeof AuditActions.SamlKeysGenerated = AuditActions.SettingsUpdated,
): Promise<void> {
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    for (const [key, value] of Object.entries(changes) as [SettingKey, Settings[SettingKey]][]) {
      await writeSetting(trx, key, value, now);
    }
    await recordAudit(trx, now, action, { AdminName: actor.userName, Description: what });
  });
}
