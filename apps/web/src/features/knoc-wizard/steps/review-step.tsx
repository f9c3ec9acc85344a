import { QueryState } from '@/components/QueryState';
import { groupsApi } from '@/features/groups/api';
import { usersApi } from '@/features/users/api';
import type { KnocWizardState } from '../knoc-wizard-state';
import { namedEnvVars } from '../sections/env-vars';
import { ReviewSection } from '../sections/ReviewSection';
import type { LinearStep, StepProps } from '../wizard';
import { useChosenAgent } from './agent-step';

function ReviewStep({ state }: StepProps<KnocWizardState>) {
  const users = usersApi.useList();
  const groups = groupsApi.useList();
  const agent = useChosenAgent(state.agentId);
  return (
    <QueryState {...users}>
      {(userList) => (
        <QueryState {...groups}>
          {(groupList) => (
            <ReviewSection
              settings={state.settings}
              options={state.options}
              envVars={state.settings.Type === 'script' ? namedEnvVars(state.envVars.EnvVars) : undefined}
              agent={agent}
              users={userList}
              groups={groupList}
              members={state.members}
            />
          )}
        </QueryState>
      )}
    </QueryState>
  );
}

/** The review step: Next submits. */
export const reviewStep: LinearStep<KnocWizardState> = {
  id: 'review',
  titleKey: 'knocWizard.steps.review',
  component: ReviewStep,
  canAdvance: () => true,
};
