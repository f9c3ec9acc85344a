import type { ReactNode } from 'react';
import type { AgentRecord } from '@postern/protocol';
import { QueryState } from '@/components/QueryState';
import { groupsApi } from '@/features/groups/api';
import { usersApi } from '@/features/users/api';
import type { KnocWizardState } from '../knoc-wizard-state';
import { namedEnvVars } from '../sections/env-vars';
import { ReviewSection } from '../sections/ReviewSection';
import type { LinearStep, StepProps } from '../wizard';
import { useChosenAgent } from './agent-step';

/**
 * The review of a wizard's state, once the users and groups are loaded: the shared summaries, with
 * `children` for a wizard's own (the application wizard's key), and the agent card for `agent`.
 */
export function WizardReview({
  state,
  agent,
  children,
}: {
  state: KnocWizardState;
  agent: AgentRecord | null;
  children?: ReactNode;
}) {
  const users = usersApi.useList();
  const groups = groupsApi.useList();
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
            >
              {children}
            </ReviewSection>
          )}
        </QueryState>
      )}
    </QueryState>
  );
}

function ReviewStep({ state }: StepProps<KnocWizardState>) {
  return <WizardReview state={state} agent={useChosenAgent(state.agentId)} />;
}

/** The review step: Next submits. */
export const reviewStep: LinearStep<KnocWizardState> = {
  id: 'review',
  titleKey: 'knocWizard.steps.review',
  component: ReviewStep,
  canAdvance: () => true,
};
