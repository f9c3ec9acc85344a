import { useReducer, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { ErrorDialog } from '@/components/dialogs/ErrorDialog';
import { useCreateKnocWithWizard } from './api';
import { CreatedKnocDialog, hasCreatedSecrets, type CreatedKnocSecrets } from './components/CreatedKnocDialog';
import { createdKnocPath } from './KnocWizard';
import { toKnocFields } from './sections/knoc-options';
import { uniqueBackendName } from './to-request';
import { wizardReducer, type WizardAction } from './wizard';
import { WizardStepper } from './WizardStepper';
import { applicationSteps } from './wizards/application';
import { refreshBackendBase, toApplicationCreateInput } from './wizards/application-request';
import { initialApplicationState, settingsValuesOf, type ApplicationWizardState } from './wizards/application-state';

/**
 * The application wizard (`/admin/knocs/new/application`), started afresh when mounted. Nothing is
 * sent before the review. When the create answers with a key or an allowlist address, the wizard
 * stays and shows them (spec §2); Close resets it and goes to the knocs list. Otherwise it resets
 * and shows the new knoc.
 */
export function ApplicationKnocWizard() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const initial = () =>
    initialApplicationState([t('apiKeysScreen.allowedFrom.anywhereV4'), t('apiKeysScreen.allowedFrom.anywhereV6')]);
  const [state, dispatch] = useReducer<ApplicationWizardState, undefined, [WizardAction<ApplicationWizardState>]>(
    wizardReducer,
    undefined,
    initial,
  );
  const create = useCreateKnocWithWizard();
  const [created, setCreated] = useState<CreatedKnocSecrets | null>(null);

  function submit() {
    create.mutate(
      (taken) => {
        const knoc = uniqueBackendName(state.options.Description, taken);
        const refresh = uniqueBackendName(refreshBackendBase(state.options.Description), [...taken, knoc]);
        return toApplicationCreateInput({
          settings: settingsValuesOf(state),
          options: toKnocFields(state.options),
          apiKey: state.apiKey,
          agentId: state.agentId,
          userIds: state.members.userIds,
          groupIds: state.members.groupIds,
          backendNames: { knoc, refresh },
        });
      },
      {
        onSuccess: (answer) => {
          if (hasCreatedSecrets(answer)) {
            setCreated(answer);
            return;
          }
          dispatch({ type: 'reset', initial: initial() });
          void navigate(createdKnocPath(answer.KnocID));
        },
      },
    );
  }

  function closeCreated() {
    setCreated(null);
    dispatch({ type: 'reset', initial: initial() });
    void navigate('/admin/knocs');
  }

  return (
    <>
      <WizardStepper
        steps={applicationSteps}
        state={state}
        dispatch={dispatch}
        onSubmit={submit}
        submitting={create.isPending}
      />
      <ErrorDialog error={create.error} onClose={() => create.reset()} />
      <CreatedKnocDialog created={created} onClose={closeCreated} />
    </>
  );
}
