import {
  LICENSING_DOCS_PATH,
  MINIMUM_AGENT_VERSION,
  POSTERN_VERSION,
  type AclEntry,
  type AdminStatus,
  type OidcRealm,
  type SystemStatus,
  type Theme,
  type UserStatus,
} from '@postern/protocol';
import type { AppContext, RequestMeta } from '../app-context.js';
import type { User } from '../users/users.repo.js';
import type { Admin } from '../admins/admins.repo.js';
import type { UserSession } from '../sessions/sessions.repo.js';
import { countUsers } from '../users/users.repo.js';
import { countActiveUserSessions } from '../sessions/sessions.repo.js';
import { adminSessionInfo } from '../auth/session-info.js';
import { recentAudit } from '../audit/audit.js';
import { readSetting, readSettings, type Settings } from '../settings/settings.js';
import { currentLicensing, currentUserLimitState, usersLicensedIn } from '../licence/licence.js';
import { isoOrNull } from '../lib/rows.js';
import { decodeLogo, samlConfigured } from '../settings/settings.service.js';
import { userAclEntries } from '../grants/user-acl-entries.js';
import { discoveryUrls, type PortalAddress } from '../ip-discovery/discovery-url.js';
import { oidcConfigured, oidcRealmSettings, providerName } from '../oidc/oidc-settings.js';
import { releaseStatus } from '../releases/release-feed.js';

/** Knocs an admin sees in the console: hidden passive+ children and HideFromAdmins knocs excluded. */
async function countVisibleKnocs(ctx: AppContext): Promise<number> {
  const row = await ctx.db
    .selectFrom('knocs')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('hideFromAdmins', '=', false)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * The URL the dashboard opens on its own: only when exactly one ACL asks for it and its URL is
 * http(s); the knoc's UriToken goes along as `knoctoken`.
 */
function autoBrowseTarget(acls: readonly AclEntry[]): string | null {
  const candidates = acls.filter((acl) => acl.AutoBrowseUsers && !acl.HideFromUsers && /^https?:\/\//i.test(acl.URL));
  const [only] = candidates;
  if (candidates.length !== 1 || only === undefined || !URL.canParse(only.URL)) return null;
  const url = new URL(only.URL);
  if (only.Config.UriToken !== '') url.searchParams.set('knoctoken', only.Config.UriToken);
  return url.toString();
}

/** How many audit entries the admin home's "recent activity" shows. */
const RECENT_ACTIVITY_ENTRIES = 10;

export async function userStatus(
  ctx: AppContext,
  user: User,
  session: UserSession,
  meta: RequestMeta,
): Promise<UserStatus> {
  // Every open portal asks every few seconds: one licence check, and only the setting it shows.
  const [newUserDashboard, limitState] = await Promise.all([
    readSetting(ctx.db, 'NewUserDashboard'),
    currentUserLimitState(ctx),
  ]);
  const userLicensed = usersLicensedIn(limitState);
  const acls = userLicensed ? await userAclEntries(ctx, { user, session, address: meta.ipAddress }) : [];
  return {
    Name: user.name,
    UserName: user.userName,
    CurrentAddress: meta.ipAddress,
    Ends: new Date(session.endsAt).toISOString(),
    KioskMode: session.kiosk,
    ValidUntil: isoOrNull(user.validUntil),
    Licensed: limitState.kind !== 'unlicensed',
    UserLicensed: userLicensed,
    AuthType: user.authType,
    NewUserDashboard: newUserDashboard,
    AutoBrowseToURI: autoBrowseTarget(acls),
    ACLs: acls,
    Language: user.language,
  };
}

export async function adminStatus(ctx: AppContext, admin: Admin): Promise<AdminStatus> {
  const now = ctx.clock.now();
  const [userCount, sessionCount, activity, licensing, aclCount] = await Promise.all([
    countUsers(ctx.db),
    countActiveUserSessions(ctx.db, now),
    recentAudit(ctx.db, RECENT_ACTIVITY_ENTRIES),
    currentLicensing(ctx),
    countVisibleKnocs(ctx),
  ]);
  return {
    ...adminSessionInfo(admin),
    Cloud: false,
    ServerVersion: POSTERN_VERSION,
    MinimumRequiredAgentVersion: MINIMUM_AGENT_VERSION,
    UserCount: userCount,
    ExperimentalFeatures: ctx.config.experimentalFeatures,
    SessionCount: sessionCount,
    ACLCount: aclCount,
    Activity: activity,
    Licensing: licensing,
    Language: admin.language,
    SupportUrl: ctx.config.supportUrl,
    SupportEmail: ctx.config.supportEmail,
    // Never a dead end: without the operator's page, Postern's own licensing documentation.
    LicensingUrl: ctx.config.licensingUrl ?? LICENSING_DOCS_PATH,
    PublicUrl: ctx.config.publicUrl,
    // Only from the operator's feed: Postern does not phone home for updates on its own.
    ...releaseStatus(ctx.releases.current()),
  };
}

export async function theme(ctx: AppContext): Promise<Theme> {
  const settings = await readSettings(ctx.db);
  return {
    Accent: settings.Accent,
    HighAccessibility: settings.HighAccessibility,
    LogoURL: logoUrl('dark', settings.Logo),
    LightModeLogoURL: logoUrl('light', settings.LightModeLogo),
  };
}

/** The logo's address with its content tag, so browsers fetch it again only when it changes. */
function logoUrl(variant: 'dark' | 'light', dataUrl: string): string {
  const logo = decodeLogo(dataUrl);
  return logo === null ? '' : `/api/branding/logo/${variant}?v=${logo.etag}`;
}

export async function systemStatus(ctx: AppContext, bundleHash: string, portal: PortalAddress): Promise<SystemStatus> {
  const settings = await readSettings(ctx.db);
  return {
    ...discoveryUrls(ctx, settings, portal),
    JsBundleHash: bundleHash,
    UserSAMLConfigured: samlConfigured(settings, 'user'),
    AdminSAMLConfigured: samlConfigured(settings, 'admin'),
    UserOIDCConfigured: oidcConfigured(settings, 'user'),
    UserOIDCProviderName: oidcButtonName(settings, 'user'),
    AdminOIDCConfigured: oidcConfigured(settings, 'admin'),
    AdminOIDCProviderName: oidcButtonName(settings, 'admin'),
    UserPasskeySignIn: settings.UserPasskeySignIn,
    AdminPasskeySignIn: settings.AdminPasskeySignIn,
  };
}

/** The provider's name on a realm's login button; '' while the realm's provider is not set up. */
function oidcButtonName(settings: Settings, realm: OidcRealm): string {
  return oidcConfigured(settings, realm) ? providerName(oidcRealmSettings(settings, realm)) : '';
}
