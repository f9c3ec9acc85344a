import { UPDATE_URGENCIES, type AdminStatus, type AgentRecord } from '@postern/protocol';
import { licenceLinks } from '../../lib/links';
import { licenceUsage, type LicenceUsage } from './licence-usage';
import { agentVersionState, compareVersions, versionPolicy } from '../agents/agent-version';

/**
 * The admin banner area's rules (spec, portal-and-grants §2 "Admin banner area"): at most one
 * banner, the first that applies in this priority order and has not been dismissed this session.
 */
export const BANNER_PRIORITY = ['unlicensed', 'agentIncompatible', 'userLimitExceeded', 'serverUpdate'] as const;

/** One kind of admin banner. */
export type BannerKind = (typeof BANNER_PRIORITY)[number];

/** The spec marks all but the unlicensed banner dismissible: a missing licence is never hidden. */
export const DISMISSIBLE_BANNERS: ReadonlySet<BannerKind> = new Set<BannerKind>([
  'agentIncompatible',
  'userLimitExceeded',
  'serverUpdate',
]);

/** Server update urgency, lowest first. */
export type UpdateUrgency = (typeof UPDATE_URGENCIES)[number];

/** One banner with everything it shows. */
export type Banner =
  /** `licensingUrl`: the licensing site the operator configured, or null (then no link). */
  | { kind: 'unlicensed'; licensingUrl: string | null }
  | { kind: 'agentIncompatible'; requiredVersion: string; agentNames: string[] }
  | { kind: 'userLimitExceeded'; usage: LicenceUsage }
  | { kind: 'serverUpdate'; urgency: UpdateUrgency; version: string; currentVersion: string; changelogUrl: string };

/** What the banners are decided from: the admin status and the agents' reported versions. */
export interface BannerFacts {
  status: AdminStatus;
  agents: readonly Pick<AgentRecord, 'Name' | 'Version'>[];
}

/**
 * Agents whose reported version is below the server's minimum: the agents page's red "incompatible"
 * badge, by the same rule, so the banner and the badges never disagree. Agents that never connected
 * report no version and are not counted.
 */
export function incompatibleAgentNames(agents: BannerFacts['agents'], status: AdminStatus): string[] {
  const policy = versionPolicy(status);
  return agents
    .filter((agent) => agentVersionState(agent.Version, policy) === 'incompatible')
    .map((agent) => agent.Name);
}

/**
 * The update to announce (spec §4): among the releases newer than the running server, the highest
 * urgency any of them carries (a critical fix stays critical when a later release follows it) and
 * the newest version, which includes every earlier fix. Null when none is newer.
 */
export function pendingServerUpdate(
  status: Pick<AdminStatus, 'ServerVersion' | 'AvailableServerVersions'>,
): { urgency: UpdateUrgency; version: string } | null {
  const newer = status.AvailableServerVersions.filter(
    (release) => (compareVersions(release.version, status.ServerVersion) ?? 0) > 0,
  );
  const [first, ...rest] = newer;
  if (first === undefined) return null;
  let urgency = first.urgency;
  let version = first.version;
  for (const release of rest) {
    if (UPDATE_URGENCIES.indexOf(release.urgency) > UPDATE_URGENCIES.indexOf(urgency)) urgency = release.urgency;
    if ((compareVersions(release.version, version) ?? 0) > 0) version = release.version;
  }
  return { urgency, version };
}

/** The banner of one kind when its condition holds, else null. */
function bannerOf(kind: BannerKind, { status, agents }: BannerFacts): Banner | null {
  switch (kind) {
    case 'unlicensed':
      // Expired counts too: the server reports an expired licence as not Licensed.
      return status.Licensing.Licensed ? null : { kind, licensingUrl: licenceLinks(status).licensing };
    case 'agentIncompatible': {
      const agentNames = incompatibleAgentNames(agents, status);
      return agentNames.length === 0 ? null : { kind, requiredVersion: status.MinimumRequiredAgentVersion, agentNames };
    }
    case 'userLimitExceeded': {
      const usage = licenceUsage(status.Licensing, status.UserCount);
      return usage === null ? null : { kind, usage };
    }
    case 'serverUpdate': {
      // Spec: not shown for cloud installations, which are updated for their admins.
      const update = status.Cloud ? null : pendingServerUpdate(status);
      return update === null
        ? null
        : { kind, ...update, currentVersion: status.ServerVersion, changelogUrl: status.LatestChangeLogsUrl };
    }
  }
}

/** Every banner whose condition holds, in priority order (dismissals aside). */
export function applicableBanners(facts: BannerFacts): Banner[] {
  return BANNER_PRIORITY.map((kind) => bannerOf(kind, facts)).filter((banner) => banner !== null);
}

/** The one banner to show: the first applicable one not dismissed; a dismissal gives the next its turn. */
export function chooseBanner(facts: BannerFacts, dismissed: ReadonlySet<BannerKind>): Banner | null {
  return (
    applicableBanners(facts).find((banner) => !(DISMISSIBLE_BANNERS.has(banner.kind) && dismissed.has(banner.kind))) ??
    null
  );
}

/**
 * Whether the agent list is needed at all: only when the agent banner could still be the one shown,
 * i.e. the installation is licensed (else the undismissible unlicensed banner wins) and the admin has
 * not dismissed it. This spares the agents call on most pages of an unlicensed install.
 */
export function needsAgentList(status: AdminStatus | undefined, dismissed: ReadonlySet<BannerKind>): boolean {
  return status !== undefined && status.Licensing.Licensed && !dismissed.has('agentIncompatible');
}
