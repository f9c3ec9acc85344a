import { QueryState } from '@/components/QueryState';
import { groupsApi } from '@/features/groups/api';
import { usersApi } from '@/features/users/api';
import type { KnocWizardState } from '../knoc-wizard-state';
import { MembersSection } from '../sections/MembersSection';
import type { LinearStep, StepProps } from '../wizard';

function MembersStep({ state, update }: StepProps<KnocWizardState>) {
  const users = usersApi.useList();
  const groups = groupsApi.useList();
  return (
    <QueryState {...users}>
      {(userList) => (
        <QueryState {...groups}>
          {(groupList) => (
            <MembersSection
              users={userList}
              groups={groupList}
              value={state.members}
              onChange={(members) => update({ members })}
            />
          )}
        </QueryState>
      )}
    </QueryState>
  );
}

/** The Users and groups step: choosing none is allowed. */
export const membersStep: LinearStep<KnocWizardState> = {
  id: 'members',
  titleKey: 'knocWizard.steps.members',
  component: MembersStep,
  canAdvance: () => true,
};
