import { agentIncapability, type AgentRecord, type BackendType } from '@postern/protocol';
import { backendTypeAvailability } from '@/features/backends/backend-types';
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

/**
 * The change of choosing another backend type (the Linux wizard's ipset or nftables): the settings
 * start again from the type's defaults; the chosen agent stays when it can drive the type, else the
 * choice is cleared (the agent select then offers the type's agents).
 */
export function chooseType(
  state: KnocWizardState,
  type: BackendType,
  agents: readonly AgentRecord[],
): Partial<KnocWizardState> {
  if (type === state.settings.Type) return {};
  const agent = agents.find((candidate) => candidate.ID === state.agentId) ?? null;
  const kept = agent !== null && agentIncapability(agent.Capabilities, type) === null ? agent : null;
  return {
    agentId: kept?.ID ?? null,
    settings: presetSettings(defaultSettings(type, kept), state.settingsPreset),
  };
}

/**
 * The type to start with: the chosen one while some agent can drive it, else the first offered
 * type one can (the wizard then opens on what the agents can do), else the chosen one.
 */
export function preferredType(
  types: readonly BackendType[],
  agents: readonly AgentRecord[],
  chosen: BackendType,
): BackendType {
  const available = (type: BackendType) => !backendTypeAvailability(type, agents).disabled;
  if (available(chosen)) return chosen;
  return types.find(available) ?? chosen;
}

/** A type's default settings with a preset's fields over them. */
function presetSettings(settings: SettingsValues, preset: SettingsPreset): SettingsValues {
  return {
    ...settings,
    Backend: { ...settings.Backend, ...preset.Backend },
    Acl: { ...settings.Acl, ...preset.Acl },
  };
}
