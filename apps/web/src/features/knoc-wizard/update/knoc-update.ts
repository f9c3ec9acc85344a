import type { z } from 'zod';
import { BackendType, RECORDED, type KnocRecord, type KnocWizardUpdateBody } from '@postern/protocol';
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

/** A stored knoc as the update screen's form values (its type is fixed by its config). */
export function updateValuesFromKnoc(knoc: KnocRecord): KnocUpdateValues {
  const type = BackendType.parse(knoc.BackendType);
  const elsewhere = fieldsElsewhere(type);
  const acl = record(knoc.AclConfig[type]);
  const restriction = knoc.IpExclusions;
  const minutes = knoc.MaximumGrantDuration / 60;
  return {
    settings: {
      Type: type,
      Backend: withoutFields(record(knoc.BackendConfig[type]), elsewhere),
      Acl: withoutFields(acl, elsewhere),
    },
    options: {
      ...defaultKnocOptions(),
      Description: knoc.Description,
      URL: knoc.URL,
      Category: knoc.Category,
      Icon: knoc.Icon,
      ClickToGrant: knoc.ClickToGrant,
      HideFromUsers: knoc.HideFromUsers,
      AutoBrowseUsers: knoc.AutoBrowseUsers,
      CGNATOpen: knoc.CGNATOpen,
      MaximumGrantMinutes: minutes === 0 ? '' : minutes,
      IpExclusions: { ...restriction, Ranges: restriction.Ranges.map((range) => ({ ...range })) },
      GrantType: { Type: knoc.GrantType.Type, Ips: knoc.GrantType.Ips.map((entry) => ({ ...entry })) },
    },
    envVars: { EnvVars: Array.isArray(acl.EnvVars) ? acl.EnvVars.map(envVarRow) : [] },
    members: { userIds: [...knoc.UserIDs], groupIds: [...knoc.GroupIDs] },
  };
}

/** PUT /api/admin/knocs/{id}: the backend (its own name and agent kept), the knoc, the memberships. */
export function toUpdateInput(knoc: KnocRecord, values: KnocUpdateValues): z.input<typeof KnocWizardUpdateBody> {
  const configs = configsOf(values.settings, values.envVars);
  return {
    Backend: { ID: knoc.BackendID, Name: knoc.BackendName, AgentID: knoc.AgentID, Config: configs.backend },
    Knoc: { ...toKnocFields(values.options), ID: knoc.ID, Config: configs.acl },
    UserIDs: values.members.userIds,
    GroupIDs: values.members.groupIds,
  };
}
