import type { KnocWizardState } from '../knoc-wizard-state';
import { namedEnvVars } from '../sections/env-vars';
import { ReviewSection } from '../sections/ReviewSection';
import type { LinearStep, StepProps } from '../wizard';
import { useChosenAgent } from './agent-step';
import { WithMembersData } from './with-members-data';

function ReviewStep({ state }: StepProps<KnocWizardState>) {
  const agent = useChosenAgent(state.agentId);
  return (
    <WithMembersData>
      {(users, groups) => (
        <ReviewSection
          settings={state.settings}
          options={state.options}
          envVars={state.settings.Type === 'script' ? namedEnvVars(state.envVars.EnvVars) : undefined}
          agent={agent}
          users={users}
          groups={groups}
          members={state.members}
        />
      )}
    </WithMembersData>
  );
}

/** The review step: Next submits. */
export const reviewStep: LinearStep<KnocWizardState> = {
  id: 'review',
  titleKey: 'knocWizard.steps.review',
  component: ReviewStep,
  canAdvance: () => true,
};
