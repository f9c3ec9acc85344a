import type { AgentRecord, BackendType } from '@postern/protocol';
import type { WizardState } from './wizard';
import type { EnvVarsValues } from './sections/env-vars';
import { defaultKnocOptions, type KnocOptionsValues } from './sections/knoc-options';
import type { MembersValues } from './sections/members';
import { defaultSettings, type SettingsValues } from './sections/settings';

/** Settings fields a wizard starts with instead of the type's defaults (a vendor's script). */
export interface SettingsPreset {
  Backend?: Record<string, unknown>;
  Acl?: Record<string, unknown>;
}

/** The state of a knoc wizard (spec §3 "Wizard state"), one part per section. */
export interface KnocWizardState extends WizardState {
  agentId: string | null;
  settings: SettingsValues;
  /** Kept when a new agent starts the settings again from its defaults. */
  settingsPreset: SettingsPreset;
  options: KnocOptionsValues;
  envVars: EnvVarsValues;
  members: MembersValues;
}

/** A wizard's state when it starts (and again after a success): nothing chosen, the spec's defaults. */
export function initialKnocWizardState(
  firstStep: string,
  type: BackendType,
  settingsPreset: SettingsPreset = {},
): KnocWizardState {
  return {
    step: firstStep,
    agentId: null,
    settings: presetSettings(defaultSettings(type, null), settingsPreset),
    settingsPreset,
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
  return { agentId, settings: presetSettings(defaultSettings(state.settings.Type, agent), state.settingsPreset) };
}

/** A type's default settings with a preset's fields over them. */
function presetSettings(settings: SettingsValues, preset: SettingsPreset): SettingsValues {
  return {
    ...settings,
    Backend: { ...settings.Backend, ...preset.Backend },
    Acl: { ...settings.Acl, ...preset.Acl },
  };
}
