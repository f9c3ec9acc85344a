import type { z } from 'zod';
import { BackendType, RECORDED, type KnocRecord, type KnocWizardUpdateBody } from '@postern/protocol';
import { backendConfigForRequest, backendConfigValues, secretsToReenter } from '@/features/backends/config-values';
import type { EnvVarRow, EnvVarsValues } from '../sections/env-vars';
import { defaultKnocOptions, toKnocFields, type KnocOptionsValues } from '../sections/knoc-options';
import type { MembersValues } from '../sections/members';
import { fieldsElsewhere, type SettingsValues } from '../sections/settings';
import { configsOf } from '../to-request';

/** What the update screen's forms start from. */
export interface KnocUpdateValues {
  settings: SettingsValues;
  options: KnocOptionsValues;
  envVars: EnvVarsValues;
  members: MembersValues;
}

const record = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

const withoutFields = (config: Record<string, unknown>, fields: readonly string[]) =>
  Object.fromEntries(Object.entries(config).filter(([field]) => !fields.includes(field)));

/** A stored script variable as a form row: a stored encrypted value shows empty and is kept while empty. */
function envVarRow(value: unknown): EnvVarRow {
  const fields = record(value);
  const encrypted = fields.Encrypted === true;
  const stored = typeof fields.Value === 'string' ? fields.Value : '';
  return {
    Name: typeof fields.Name === 'string' ? fields.Name : '',
    Value: encrypted || stored === RECORDED ? '' : stored,
    Sensitive: fields.Sensitive === true,
    Encrypted: encrypted,
  };
}

/**
 * A stored knoc as the update screen's form values (its type is fixed by its config); its secrets
 * empty, shown as RECORDED and kept while left empty. A passive+ firewall knoc (`parent` given) shows
 * its parent's options and members: the parent is the knoc users see and the one holding the members.
 */
export function updateValuesFromKnoc(knoc: KnocRecord, parent: KnocRecord | null = null): KnocUpdateValues {
  const type = BackendType.parse(knoc.BackendType);
  const elsewhere = fieldsElsewhere(type);
  const acl = record(knoc.AclConfig[type]);
  const shown = parent ?? knoc;
  const restriction = shown.IpExclusions;
  const minutes = shown.MaximumGrantDuration / 60;
  return {
    settings: {
      Type: type,
      Backend: withoutFields(backendConfigValues(type, storedBackendConfig(knoc)), elsewhere),
      Acl: withoutFields(acl, elsewhere),
    },
    options: {
      ...defaultKnocOptions(),
      Description: shown.Description,
      URL: shown.URL,
      Category: shown.Category,
      Icon: shown.Icon,
      ClickToGrant: shown.ClickToGrant,
      HideFromUsers: shown.HideFromUsers,
      AutoBrowseUsers: shown.AutoBrowseUsers,
      CGNATOpen: shown.CGNATOpen,
      MaximumGrantMinutes: minutes === 0 ? '' : minutes,
      IpExclusions: { ...restriction, Ranges: restriction.Ranges.map((range) => ({ ...range })) },
      GrantType: { Type: shown.GrantType.Type, Ips: shown.GrantType.Ips.map((entry) => ({ ...entry })) },
    },
    envVars: { EnvVars: Array.isArray(acl.EnvVars) ? acl.EnvVars.map(envVarRow) : [] },
    members: { userIds: [...shown.UserIDs], groupIds: [...shown.GroupIDs] },
  };
}

/** The knoc's backend config as stored (its secrets read back RECORDED). */
function storedBackendConfig(knoc: KnocRecord): Record<string, unknown> {
  return record(knoc.BackendConfig[BackendType.parse(knoc.BackendType)]);
}

/**
 * The secrets to ask for before saving: the backend's address changed while a secret was left as
 * stored (see secretsToReenter). Empty: save at once.
 */
export function secretsToAskFor(knoc: KnocRecord, settings: SettingsValues): string[] {
  return secretsToReenter(settings.Type, storedBackendConfig(knoc), settings.Backend);
}

/**
 * PUT /api/admin/knocs/{id}: the backend (its own name and agent kept; a secret left empty goes back
 * as RECORDED, kept as stored), the knoc, the memberships.
 */
export function toUpdateInput(knoc: KnocRecord, values: KnocUpdateValues): z.input<typeof KnocWizardUpdateBody> {
  const configs = configsOf(values.settings, values.envVars);
  const type = values.settings.Type;
  const backend = { [type]: backendConfigForRequest(type, configs.backend[type] ?? {}, 'update') };
  return {
    Backend: { ID: knoc.BackendID, Name: knoc.BackendName, AgentID: knoc.AgentID, Config: backend },
    Knoc: { ...toKnocFields(values.options), ID: knoc.ID, Config: configs.acl },
    UserIDs: values.members.userIds,
    GroupIDs: values.members.groupIds,
  };
}
