import type { z } from 'zod';
import { KnocWizardCreateBody } from '@postern/protocol';
import { presentFields } from '@/features/backends/config-values';
import type { KnocWizardState } from './knoc-wizard-state';
import { namedEnvVars, type EnvVarsValues } from './sections/env-vars';
import type { SettingsValues } from './sections/settings';
import { toKnocFields } from './sections/knoc-options';

/** What POST /api/admin/knocs reads. */
export type KnocWizardCreateInput = z.input<typeof KnocWizardCreateBody>;

/**
 * A name no backend has yet: the knoc's description, else with " (2)", " (3)" … (backend names are
 * unique, and the wizard's backend belongs to this one knoc).
 */
export function uniqueBackendName(description: string, taken: readonly string[]): string {
  const base = description.trim();
  const used = new Set(taken.map((name) => name.trim().toLowerCase()));
  let candidate = base;
  for (let n = 2; used.has(candidate.toLowerCase()); n += 1) candidate = `${base} (${n})`;
  return candidate;
}

/**
 * The wizard's state as the create body: the backend (named `backendName`, on the chosen agent), the
 * knoc with its options and config, the memberships.
 */
export function toCreateInput(state: KnocWizardState, backendName: string): KnocWizardCreateInput {
  const configs = configsOf(state.settings, state.envVars);
  return {
    Backend: { Name: backendName, AgentID: state.agentId, Config: configs.backend },
    ApiKey: { Option: 'none' },
    Knoc: { ...toKnocFields(state.options), Config: configs.acl },
    UserIDs: state.members.userIds,
    GroupIDs: state.members.groupIds,
  };
}

/**
 * The backend's and the knoc's `{ <type>: fields }` configs. A script's variables go to both: their
 * names and sensitivity to the backend, their values to the knoc; rows without a name are dropped.
 */
export function configsOf(
  settings: SettingsValues,
  envVars: EnvVarsValues,
): { backend: Record<string, Record<string, unknown>>; acl: Record<string, Record<string, unknown>> } {
  const { Type: type, Backend: backend, Acl: acl } = settings;
  if (type !== 'script') return { backend: { [type]: presentFields(backend) }, acl: { [type]: acl } };
  const variables = namedEnvVars(envVars.EnvVars);
  return {
    backend: { script: { ...backend, EnvVars: variables.map(({ Name, Sensitive }) => ({ Name, Sensitive })) } },
    acl: { script: { ...acl, EnvVars: variables.map(({ Name, Value, Sensitive }) => ({ Name, Value, Sensitive })) } },
  };
}

/**
 * The body checked against the protocol before it is sent: a wizard that let through what the
 * server refuses fails here, loudly, instead of half-way through the server's sequence. The input is
 * what is sent (the parsed form rewrites each config as `{type, fields}`).
 */
export function checkedCreateInput(input: KnocWizardCreateInput): KnocWizardCreateInput {
  KnocWizardCreateBody.parse(input);
  return input;
}
