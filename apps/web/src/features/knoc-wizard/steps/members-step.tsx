import type { KnocWizardState } from '../knoc-wizard-state';
import { MembersSection } from '../sections/MembersSection';
import type { LinearStep, StepProps } from '../wizard';
import { WithMembersData } from './with-members-data';

function MembersStep({ state, update }: StepProps<KnocWizardState>) {
  return (
    <WithMembersData>
      {(users, groups) => (
        <MembersSection
          users={users}
          groups={groups}
          value={state.members}
          onChange={(members) => update({ members })}
        />
      )}
    </WithMembersData>
  );
}

/** The Users and groups step: choosing none is allowed. */
export const membersStep: LinearStep<KnocWizardState> = {
  id: 'members',
  titleKey: 'knocWizard.steps.members',
  component: MembersStep,
  canAdvance: () => true,
};
