import { useReducer } from 'react';
import { useNavigate } from 'react-router';
import { ErrorDialog } from '@/components/dialogs/ErrorDialog';
import { useCreateKnocWithWizard } from './api';
import type { KnocWizardState, SettingsPreset } from './knoc-wizard-state';
import { toCreateInput, uniqueBackendName } from './to-request';
import { startState, type KnocWizardDefinition } from './wizards/definition';
import { wizardReducer, type WizardAction } from './wizard';
import { WizardStepper } from './WizardStepper';

/** Where a created knoc is shown: the knocs list, opening its detail dialog. */
export const createdKnocPath = (knocId: string) => `/admin/knocs?viewKnocId=${encodeURIComponent(knocId)}`;

/**
 * One knoc wizard, started afresh whenever it is mounted (spec §2: starting a wizard resets it).
 * Nothing is sent until Next on the review step; a success resets the state and shows the new knoc,
 * a failure shows the Error dialog over the review, with everything still filled in.
 */
export function KnocWizard({ definition, preset }: { definition: KnocWizardDefinition; preset?: SettingsPreset }) {
  const navigate = useNavigate();
  const [state, dispatch] = useReducer<KnocWizardState, [WizardAction<KnocWizardState>]>(
    wizardReducer,
    startState(definition, preset),
  );
  const create = useCreateKnocWithWizard();

  function submit() {
    create.mutate((taken) => toCreateInput(state, uniqueBackendName(state.options.Description, taken)), {
      onSuccess: (created) => {
        dispatch({ type: 'reset', initial: startState(definition, preset) });
        void navigate(createdKnocPath(created.KnocID));
      },
    });
  }

  return (
    <>
      <WizardStepper
        steps={definition.steps}
        state={state}
        dispatch={dispatch}
        onSubmit={submit}
        submitting={create.isPending}
      />
      <ErrorDialog error={create.error} onClose={() => create.reset()} />
    </>
  );
}
