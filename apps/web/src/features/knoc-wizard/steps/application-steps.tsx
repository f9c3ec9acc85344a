import { useContext, useEffect, useMemo } from 'react';
import { QueryState } from '@/components/QueryState';
import { agentsApi } from '@/features/agents/api';
import { apiKeysApi } from '@/features/api-keys/api';
import { useZodForm } from '@/lib/forms/use-zod-form';
import { AgentSection } from '../sections/AgentSection';
import { ApiKeySection } from '../sections/ApiKeySection';
import { ApplicationReviewCards } from '../sections/ApplicationReviewCards';
import { ApplicationSettingsSection } from '../sections/ApplicationSettingsSection';
import { ReviewSection } from '../sections/ReviewSection';
import { KnocOptionsSection } from '../sections/KnocOptionsSection';
import { apiKeyStepSchema, canAdvanceApiKeyStep, type ApiKeyStepValues } from '../sections/api-key-step';
import { applicationSettingsIssueKey, applicationSettingsSchema } from '../sections/application-settings';
import { descriptionIssueKey, knocOptionsSchema } from '../sections/knoc-options';
import { StepFormContext, useStepSectionForm } from '../step-form';
import type { LinearStep, StepProps } from '../wizard';
import { agentBackendType, usesAgent } from '../wizards/application-flow';
import { settingsPatch, settingsValuesOf, type ApplicationWizardState } from '../wizards/application-state';
import { useChosenAgent } from './agent-step';
import { WithMembersData } from './with-members-data';
import { sectionStep } from './form-steps';

/*
 * The application wizard's own steps (spec §2 "Application wizard"), as the shared steps are: a
 * section bound to its part of the wizard state. Their order and branching: wizards/application.ts.
 */
type Props = StepProps<ApplicationWizardState>;
type Step = LinearStep<ApplicationWizardState>;

function SettingsStep({ state, update }: Props) {
  const form = useStepSectionForm(
    applicationSettingsSchema,
    settingsValuesOf(state),
    (values) => update(settingsPatch(state, values)),
    applicationSettingsIssueKey,
  );
  return <ApplicationSettingsSection form={form} agent={useChosenAgent(state.agentId)} />;
}

/** Step 1: application type, vendor, description, URL, vendor config. */
export const applicationSettingsStep: Step = {
  id: 'settings',
  titleKey: 'knocWizardApplication.steps.settings',
  component: SettingsStep,
  canAdvance: (state) => applicationSettingsSchema.safeParse(settingsValuesOf(state)).success,
};

/** Step 2: the knoc options, without the description and URL asked for on the settings step. */
export const applicationOptionsStep = sectionStep(
  'options',
  'knocWizardApplication.steps.options',
  'options',
  knocOptionsSchema,
  ({ form }) => <KnocOptionsSection form={form} withIdentity={false} />,
  descriptionIssueKey,
);

function ApiKeyStep({ state, update }: Props) {
  const keys = apiKeysApi.useList();
  const schema = useMemo(() => apiKeyStepSchema((keys.data ?? []).map((key) => key.Name)), [keys.data]);
  const form = useZodForm<ApiKeyStepValues>({
    schema,
    initialValues: state.apiKey,
    onValuesChange: (apiKey) => update({ apiKey }),
  });
  // An existing key is chosen in the table, not typed: Next stays disabled until one is (spec §2),
  // so the stepper is given no form to validate then, only canAdvance.
  const register = useContext(StepFormContext);
  const existing = form.getValues().Option === 'existing';
  useEffect(() => {
    register(existing ? null : { validate: () => !form.validate().hasErrors });
    return () => register(null);
  });
  return <ApiKeySection form={form} />;
}

/** Step 3.1 (passive, passive+): how the firewall reads the allowlist. */
export const applicationApiKeyStep: Step = {
  id: 'apiKey',
  titleKey: 'knocWizardApplication.steps.apiKey',
  component: ApiKeyStep,
  canAdvance: (state) => canAdvanceApiKeyStep(state.apiKey),
};

function AgentStep({ state, update }: Props) {
  const agents = agentsApi.useList();
  const { ApplicationType, Vendor } = state.application;
  const type = agentBackendType(ApplicationType, Vendor) ?? 'panos';
  return (
    <QueryState {...agents}>
      {(list) => (
        <AgentSection
          agents={list}
          type={type}
          requireVersion
          value={state.agentId}
          // Choosing an agent keeps the vendor config (unlike the Linux wizard's, nothing depends on it).
          onChange={(agentId) => update({ agentId })}
        />
      )}
    </QueryState>
  );
}

/** Step 3.2 (active, passive+): an agent capable of the vendor's backend type, of a version that can. */
export const applicationAgentStep: Step = {
  id: 'agent',
  titleKey: 'knocWizardApplication.steps.agent',
  component: AgentStep,
  canAdvance: (state) => state.agentId !== null,
};

function ReviewStep({ state }: Props) {
  const keys = apiKeysApi.useList();
  const chosen = useChosenAgent(state.agentId);
  return (
    <WithMembersData>
      {(users, groups) => (
        <ReviewSection
          settings={state.settings}
          options={state.options}
          // A passive knoc has no agent, and no agent card.
          agent={usesAgent(state.application.ApplicationType) ? chosen : null}
          users={users}
          groups={groups}
          members={state.members}
        >
          <ApplicationReviewCards
            application={state.application}
            apiKey={state.apiKey}
            existingKeys={keys.data ?? []}
          />
        </ReviewSection>
      )}
    </WithMembersData>
  );
}

/** Step 5: the review; Next submits. */
export const applicationReviewStep: Step = {
  id: 'review',
  titleKey: 'knocWizardApplication.steps.review',
  component: ReviewStep,
  canAdvance: () => true,
};
