import {
  agentVersionCompatible,
  GrantStatus,
  type AclEntry,
  type AgentRecord,
  type GroupRecord,
  type UserRecord,
} from '@postern/protocol';
import { nftablesSetChoices, nftablesTableOf } from '@/features/backends/nftables-sets';
import { hasIpRestriction, type KnocOptionsValues } from './knoc-options';
import type { MembersValues } from './members';
import { agentSetNames, type SettingsValues } from './settings';

/** A warning of the review's agent card: a text key and its values. */
export interface AgentWarning {
  key:
    | 'knocWizard.review.setNameMissing'
    | 'knocWizard.review.setWithoutTimeout'
    | 'knocWizard.review.versionIncompatible';
  values: Record<string, string>;
}

const chosenName = (acl: Record<string, unknown>, field: string) => {
  const chosen = acl[field];
  return typeof chosen === 'string' ? chosen.trim() : '';
};

/** Each chosen nftables set the agent did not report in the backend's table, or reported without a timeout. */
function nftablesWarnings(settings: SettingsValues, agent: AgentRecord): AgentWarning[] {
  const table = nftablesTableOf(settings.Backend);
  return (
    [
      ['V4SetName', 'ipv4_addr'],
      ['V6SetName', 'ipv6_addr'],
    ] as const
  ).flatMap(([field, type]): AgentWarning[] => {
    const name = chosenName(settings.Acl, field);
    if (name === '') return [];
    const choice = nftablesSetChoices(agent, table, type).find((candidate) => candidate.name === name);
    if (choice === undefined) return [{ key: 'knocWizard.review.setNameMissing', values: { name, agent: agent.Name } }];
    return choice.disabled ? [{ key: 'knocWizard.review.setWithoutTimeout', values: { name } }] : [];
  });
}

/**
 * What the review's agent card warns about (spec §2): each chosen IP or nftables set the agent did
 * not report (or, nftables, reported without a timeout), and an agent whose version is below the
 * type's minimum.
 */
export function agentWarnings(settings: SettingsValues, agent: AgentRecord | null): AgentWarning[] {
  if (agent === null) return [];
  const warnings: AgentWarning[] = [];
  if (settings.Type === 'ipset') {
    for (const [field, family] of [
      ['V4SetName', 'inet'],
      ['V6SetName', 'inet6'],
    ] as const) {
      const chosen = settings.Acl[field];
      const name = typeof chosen === 'string' ? chosen.trim() : '';
      if (name !== '' && !agentSetNames(agent, family).includes(name)) {
        warnings.push({ key: 'knocWizard.review.setNameMissing', values: { name, agent: agent.Name } });
      }
    }
  }
  if (settings.Type === 'nftables') warnings.push(...nftablesWarnings(settings, agent));
  if (!agentVersionCompatible(agent.Version, settings.Type)) {
    warnings.push({
      key: 'knocWizard.review.versionIncompatible',
      values: { type: settings.Type, version: agent.Version ?? '' },
    });
  }
  return warnings;
}

/** The chosen users and groups by name, groups split into SAML and local as on the Users step. */
export function chosenMembers(
  members: MembersValues,
  users: readonly UserRecord[],
  groups: readonly GroupRecord[],
): { users: string[]; samlGroups: string[]; localGroups: string[] } {
  const chosenGroups = groups.filter((group) => members.groupIds.includes(group.ID));
  return {
    users: users.filter((user) => members.userIds.includes(user.ID)).map((user) => user.Name),
    samlGroups: chosenGroups.filter((group) => group.Type === 'saml').map((group) => group.Name),
    localGroups: chosenGroups.filter((group) => group.Type !== 'saml').map((group) => group.Name),
  };
}

/**
 * The knoc as a user's dashboard would list it right after a grant was created (status 4), for the
 * preview card; disabled for the user when an IP restriction is set.
 */
export function previewEntry(options: KnocOptionsValues): AclEntry {
  return {
    ID: 'preview',
    ACLID: 'preview',
    ParentID: null,
    Description: options.Description,
    URL: options.URL,
    Icon: options.Icon,
    Category: options.Category,
    Status: GrantStatus.Created,
    Error: '',
    ExpiredAfter: null,
    ClickToGrant: options.ClickToGrant,
    CGNATOpen: options.CGNATOpen,
    HideFromUsers: options.HideFromUsers,
    DisableForUser: hasIpRestriction(options),
    GrantTypeFixedIps: options.GrantType.Type === 'specifiedIps',
    AutoBrowseUsers: options.AutoBrowseUsers,
    Config: { UriToken: '' },
  };
}
