import { z } from 'zod';
import { dataEnvelope } from './envelope.js';
import { AdminAuthType, UserAuthType } from './auth.js';
import { ACCENTS } from './limits.js';
import { AuditEntry } from './audit.js';
import { AccountLanguage } from './account-language.js';

/** One ACL (knoc) as a user sees it on the dashboard. */
export const AclEntry = z.object({
  ID: z.string(),
  ACLID: z.string(),
  ParentID: z.string().nullable(),
  Description: z.string(),
  URL: z.string(),
  Icon: z.string(),
  Category: z.string(),
  /** A GrantStatus code. */
  Status: z.number().int(),
  Error: z.string(),
  /** ISO 8601 instant at which the current grant ends, or null when nothing is granted. */
  ExpiredAfter: z.string().nullable(),
  ClickToGrant: z.boolean(),
  CGNATOpen: z.boolean(),
  HideFromUsers: z.boolean(),
  DisableForUser: z.boolean(),
  GrantTypeFixedIps: z.boolean(),
  AutoBrowseUsers: z.boolean(),
  Config: z.object({ UriToken: z.string() }),
});
export type AclEntry = z.infer<typeof AclEntry>;
/** POST /api/grant and DELETE /api/sessions/current/granted-acls/{id}: the knoc's entry afterwards. */
export const AclEntryResponse = dataEnvelope(AclEntry);

/** GET /api/status */
export const UserStatus = z.object({
  Name: z.string(),
  UserName: z.string(),
  /** The address the server sees this request from. */
  CurrentAddress: z.string(),
  /** ISO 8601 end of the session. */
  Ends: z.string(),
  /** The session was started as "This is a public computer". */
  KioskMode: z.boolean(),
  /** ISO 8601 account expiry, or null when the account does not expire. */
  ValidUntil: z.string().nullable(),
  /** The installation holds a valid licence. */
  Licensed: z.boolean(),
  /** This user is within the licence's user limit. */
  UserLicensed: z.boolean(),
  AuthType: UserAuthType,
  NewUserDashboard: z.boolean(),
  /** A URL the dashboard opens on its own, or null. */
  AutoBrowseToURI: z.string().nullable(),
  ACLs: z.array(AclEntry),
  /** The language this account chose (PUT /api/account/language), or null: the browser's decides. */
  Language: AccountLanguage.nullable().default(null),
});
export type UserStatus = z.infer<typeof UserStatus>;
export const UserStatusResponse = dataEnvelope(UserStatus);

/** GET /api/theme */
export const Theme = z.object({
  Accent: z.enum(ACCENTS),
  HighAccessibility: z.boolean(),
  /** Where the dark-mode logo is served, or '' when none is set. */
  LogoURL: z.string(),
  /** Where the light-mode logo is served, or '' when none is set. */
  LightModeLogoURL: z.string(),
});
export type Theme = z.infer<typeof Theme>;
export const ThemeResponse = dataEnvelope(Theme);

/** GET /api/system_status */
export const SystemStatus = z.object({
  /** Base URL the browser probes on the discovery ports to learn its other addresses; empty when off. */
  IPApi: z.string(),
  /**
   * The IPv4-only discovery URL (DiscoverIPv4URL) the browser also probes on the discovery ports, to
   * learn its IPv4 address on a dual-stack network; empty when off.
   */
  IPv4Api: z.string().default(''),
  /** The same for IPv6 (DiscoverIPv6URL). */
  IPv6Api: z.string().default(''),
  /** Changes whenever a new web app build is served; the app reloads when it sees a new value. */
  JsBundleHash: z.string(),
  /**
   * Single sign-on is set up for users (IdP metadata, SP key and certificate, public URL): the user
   * login page asks for the SAML metadata, and offers SSO, only then.
   */
  UserSAMLConfigured: z.boolean(),
  /** The same for admins, on the admin login page. */
  AdminSAMLConfigured: z.boolean(),
  /**
   * Sign-in through the users' OpenID Connect provider is set up (issuer, client, secret, public
   * URL): the user login page offers it, named by UserOIDCProviderName.
   */
  UserOIDCConfigured: z.boolean().default(false),
  /** The users' provider as the login button names it: its display name, else the issuer's host; '' when not set up. */
  UserOIDCProviderName: z.string().default(''),
  /** The same for admins, on the admin login page. */
  AdminOIDCConfigured: z.boolean().default(false),
  AdminOIDCProviderName: z.string().default(''),
  /** The user login page offers signing in with a passkey alone (UserPasskeySignIn). */
  UserPasskeySignIn: z.boolean().default(false),
  /** The same for admins (AdminPasskeySignIn). */
  AdminPasskeySignIn: z.boolean().default(false),
});
export type SystemStatus = z.infer<typeof SystemStatus>;
export const SystemStatusResponse = dataEnvelope(SystemStatus);

export const UPDATE_URGENCIES = ['low', 'medium', 'high', 'critical'] as const;

/** The licence block of the admin status. */
export const LicensingSummary = z.object({
  Licensed: z.boolean(),
  /** ISO 8601 expiry, or null when unlicensed. */
  Expires: z.string().nullable(),
  UserLimit: z.number().int(),
  UserLimitOverage: z.number().int(),
  UserLimitOveragePercentage: z.number(),
  SessionLimit: z.number().int(),
});
export type LicensingSummary = z.infer<typeof LicensingSummary>;

/** GET /api/admin/status */
/**
 * Features an operator turns on before they are the default (POSTERN_EXPERIMENTAL_FEATURES).
 * enhanced-custom-script: the backend type choice also lists types an agent reports that this
 * server cannot drive, disabled with their reason (spec §5).
 */
export const EXPERIMENTAL_FEATURES = ['enhanced-custom-script'] as const;
export type ExperimentalFeature = (typeof EXPERIMENTAL_FEATURES)[number];

export const AdminStatus = z.object({
  Name: z.string(),
  UserName: z.string(),
  AuthType: AdminAuthType,
  TotpEnabled: z.boolean(),
  AdminTotpVerified: z.boolean(),
  TotpEnrolmentDeferable: z.boolean(),
  Cloud: z.boolean(),
  ServerVersion: z.string(),
  AvailableServerVersions: z.array(z.object({ version: z.string(), urgency: z.enum(UPDATE_URGENCIES) })),
  LatestChangeLogsUrl: z.string(),
  MinimumRequiredAgentVersion: z.string(),
  UserCount: z.number().int(),
  /** The experimental features this server has on; names it does not know are ignored by consoles. */
  ExperimentalFeatures: z.array(z.string()),
  SessionCount: z.number().int(),
  ACLCount: z.number().int(),
  Activity: z.array(AuditEntry),
  Licensing: LicensingSummary,
  /** The language this administrator chose (PUT /api/admin/account/language), or null: the browser's decides. */
  Language: AccountLanguage.nullable().default(null),
  /**
   * The operator's support and licensing pages (POSTERN_SUPPORT_URL, POSTERN_LICENSING_URL); null
   * when not configured, and the console then shows no such link.
   */
  SupportUrl: z.string().nullable(),
  /**
   * Where the licensing links go: POSTERN_LICENSING_URL, or by default LICENSING_DOCS_PATH (the
   * licensing page of Postern's own documentation, served by the server). Null only from older servers.
   */
  LicensingUrl: z.string().nullable(),
  /** The operator's support mail address (POSTERN_SUPPORT_EMAIL): the Contact tile writes to it; null: none. */
  SupportEmail: z.string().nullable().default(null),
  /**
   * The address people and agents use (POSTERN_PUBLIC_URL), or null when not configured: the
   * served install scripts then have no default server and need --server, which the console's
   * install command names, from the browser's address, as a guess for the admin to check.
   */
  PublicUrl: z.string().nullable(),
  AvailableAgentVersions: z.array(
    z.object({
      version: z.string(),
      urgency: z.enum(UPDATE_URGENCIES),
      description: z.string(),
      changelog_link: z.string(),
    }),
  ),
});
export type AdminStatus = z.infer<typeof AdminStatus>;
export const AdminStatusResponse = dataEnvelope(AdminStatus);
