import type { BackendType } from '@postern/protocol';
import { nameIssueKey } from '@/lib/forms/zod-form-errors';
import { configIssueKey } from '@/features/backends/config-rules';
import type { KnocWizardState } from '../knoc-wizard-state';
import { EnvVarsSection } from '../sections/EnvVarsSection';
import { envVarsSchema } from '../sections/env-vars';
import { KnocOptionsSection } from '../sections/KnocOptionsSection';
import { knocOptionsSchema } from '../sections/knoc-options';
import { SettingsSection } from '../sections/SettingsSection';
import { settingsSchema } from '../sections/settings';
import { useStepSectionForm } from '../step-form';
import type { LinearStep, StepProps } from '../wizard';
import { useChosenAgent } from './agent-step';

/** The texts of the Description's generic name rule. */
export const descriptionIssueKey = nameIssueKey({
  required: 'knocWizard.options.descriptionRequired',
  controlCharacters: 'knocWizard.options.controlCharacters',
});

/** The settings step, offering `types` (the first is the default). */
export function settingsStep(types: readonly BackendType[]): LinearStep<KnocWizardState> {
  function SettingsStep({ state, update }: StepProps<KnocWizardState>) {
    const form = useStepSectionForm(settingsSchema, state.settings, (settings) => update({ settings }), configIssueKey);
    return <SettingsSection form={form} types={types} agent={useChosenAgent(state.agentId)} mode="create" />;
  }
  return {
    id: 'settings',
    titleKey: 'knocWizard.steps.settings',
    component: SettingsStep,
    canAdvance: (state) => settingsSchema.safeParse(state.settings).success,
  };
}

function OptionsStep({ state, update }: StepProps<KnocWizardState>) {
  const form = useStepSectionForm(
    knocOptionsSchema,
    state.options,
    (options) => update({ options }),
    descriptionIssueKey,
  );
  return <KnocOptionsSection form={form} />;
}

/** The Knoc options step. */
export const optionsStep: LinearStep<KnocWizardState> = {
  id: 'options',
  titleKey: 'knocWizard.steps.options',
  component: OptionsStep,
  canAdvance: (state) => knocOptionsSchema.safeParse(state.options).success,
};

function EnvVarsStep({ state, update }: StepProps<KnocWizardState>) {
  const form = useStepSectionForm(envVarsSchema, state.envVars, (envVars) => update({ envVars }));
  return <EnvVarsSection form={form} />;
}

/** The script's Variables step. */
export const envVarsStep: LinearStep<KnocWizardState> = {
  id: 'envVars',
  titleKey: 'knocWizard.steps.envVars',
  component: EnvVarsStep,
  canAdvance: (state) => envVarsSchema.safeParse(state.envVars).success,
};
