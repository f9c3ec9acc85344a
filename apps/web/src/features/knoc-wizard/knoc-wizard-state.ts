import type { AgentRecord, BackendType } from '@postern/protocol';
import type { WizardState } from './wizard';
import type { EnvVarsValues } from './sections/env-vars';
import { defaultKnocOptions, type KnocOptionsValues } from './sections/knoc-options';
import type { MembersValues } from './sections/members';
import { defaultSettings, type SettingsValues } from './sections/settings';

/** The state of a knoc wizard (spec §3 "Wizard state"), one part per section. */
export interface KnocWizardState extends WizardState {
  agentId: string | null;
  settings: SettingsValues;
  options: KnocOptionsValues;
  envVars: EnvVarsValues;
  members: MembersValues;
}

/** A wizard's state when it starts (and again after a success): nothing chosen, the spec's defaults. */
export function initialKnocWizardState(firstStep: string, type: BackendType): KnocWizardState {
  return {
    step: firstStep,
    agentId: null,
    settings: defaultSettings(type, null),
    options: defaultKnocOptions(),
    envVars: { EnvVars: [] },
    members: { userIds: [], groupIds: [] },
  };
}

/**
 * The change of choosing an agent: a different agent starts the settings again from its defaults
 * (its socket, its IP sets); choosing the same one keeps what was typed.
 */
export function chooseAgent(state: KnocWizardState, agent: AgentRecord | null): Partial<KnocWizardState> {
  const agentId = agent?.ID ?? null;
  if (agentId === state.agentId) return {};
  return { agentId, settings: defaultSettings(state.settings.Type, agent) };
}
