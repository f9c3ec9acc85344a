import type { z } from 'zod';
import { KnocWizardCreateBody } from '@postern/protocol';
import type { KnocWizardState } from './knoc-wizard-state';
import { namedEnvVars } from './sections/env-vars';
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
 * knoc with its options and config, the memberships. A script's variables go to both configs: their
 * names and sensitivity to the backend, their values to the knoc; rows without a name are dropped.
 */
export function toCreateInput(state: KnocWizardState, backendName: string): KnocWizardCreateInput {
  const { Type: type, Backend: backend, Acl: acl } = state.settings;
  const variables = type === 'script' ? namedEnvVars(state.envVars.EnvVars) : null;
  const backendFields =
    variables === null
      ? backend
      : { ...backend, EnvVars: variables.map(({ Name, Sensitive }) => ({ Name, Sensitive })) };
  const aclFields =
    variables === null
      ? acl
      : { ...acl, EnvVars: variables.map(({ Name, Value, Sensitive }) => ({ Name, Value, Sensitive })) };
  return {
    Backend: { Name: backendName, AgentID: state.agentId, Config: { [type]: backendFields } },
    ApiKey: { Option: 'none' },
    Knoc: { ...toKnocFields(state.options), Config: { [type]: aclFields } },
    UserIDs: state.members.userIds,
    GroupIDs: state.members.groupIds,
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
