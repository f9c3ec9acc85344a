import type { BackendType } from '@postern/protocol';
import { initialKnocWizardState, type KnocWizardState, type SettingsPreset } from '../knoc-wizard-state';
import type { WizardStep } from '../wizard';

/** One knoc wizard as data: the backend types it creates and its steps (its heading is its route's title). */
export interface KnocWizardDefinition {
  /** The types the settings step offers; the first is the default. */
  types: readonly [BackendType, ...BackendType[]];
  steps: readonly WizardStep<KnocWizardState>[];
}

/** The definition's state when it starts: its first step, its default type, and any preset fields. */
export function startState(definition: KnocWizardDefinition, preset: SettingsPreset = {}): KnocWizardState {
  return initialKnocWizardState(definition.steps[0]?.id ?? '', definition.types[0], preset);
}
