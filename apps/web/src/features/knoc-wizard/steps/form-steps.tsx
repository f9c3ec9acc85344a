import type { ComponentType } from 'react';
import type { z } from 'zod';
import type { BackendType } from '@postern/protocol';
import { configIssueKey } from '@/features/backends/config-rules';
import type { ZodForm } from '@/lib/forms/use-zod-form';
import type { IssueKey } from '@/lib/forms/zod-form-errors';
import type { KnocWizardState } from '../knoc-wizard-state';
import { EnvVarsSection } from '../sections/EnvVarsSection';
import { envVarsSchema } from '../sections/env-vars';
import { KnocOptionsSection } from '../sections/KnocOptionsSection';
import { descriptionIssueKey, knocOptionsSchema } from '../sections/knoc-options';
import { SettingsSection } from '../sections/SettingsSection';
import { settingsSchema } from '../sections/settings';
import { useStepSectionForm } from '../step-form';
import type { LinearStep, StepProps } from '../wizard';
import { useChosenAgent } from './agent-step';

/** The parts of the wizard state a section form holds. */
type FormPart = 'settings' | 'options' | 'envVars';

/**
 * A step whose section is one form over one part of the state: the form starts from that part, writes
 * every change back to it, and Next validates it; the step can advance when the part is valid.
 */
export function sectionStep<P extends FormPart>(
  id: string,
  titleKey: string,
  part: P,
  schema: z.ZodType,
  Section: ComponentType<{ form: ZodForm<KnocWizardState[P]>; state: KnocWizardState }>,
  issueKey?: IssueKey,
): LinearStep<KnocWizardState> {
  function SectionStep({ state, update }: StepProps<KnocWizardState>) {
    const onChange = (values: KnocWizardState[P]) => update({ [part]: values });
    const form = useStepSectionForm(schema, state[part], onChange, issueKey);
    return <Section form={form} state={state} />;
  }
  return { id, titleKey, component: SectionStep, canAdvance: (state) => schema.safeParse(state[part]).success };
}

/**
 * The settings step, offering `types` (the first is the default). `typeChosenBefore`: an earlier step
 * chose the type (the Linux wizard's agent step), so the settings offer no choice of it.
 */
export function settingsStep(
  types: readonly BackendType[],
  { typeChosenBefore = false } = {},
): LinearStep<KnocWizardState> {
  function Settings({ form, state }: { form: ZodForm<KnocWizardState['settings']>; state: KnocWizardState }) {
    const offered = typeChosenBefore ? [state.settings.Type] : types;
    return <SettingsSection form={form} types={offered} agent={useChosenAgent(state.agentId)} mode="create" />;
  }
  return sectionStep('settings', 'knocWizard.steps.settings', 'settings', settingsSchema, Settings, configIssueKey);
}

/** The Knoc options step. */
export const optionsStep = sectionStep(
  'options',
  'knocWizard.steps.options',
  'options',
  knocOptionsSchema,
  KnocOptionsSection,
  descriptionIssueKey,
);

/** The script's Variables step. */
export const envVarsStep = sectionStep('envVars', 'knocWizard.steps.envVars', 'envVars', envVarsSchema, EnvVarsSection);
