import { initialKnocWizardState, type KnocWizardState } from '../knoc-wizard-state';
import { initialApiKeyStepValues, type ApiKeyStepValues } from '../sections/api-key-step';
import { initialApplicationSettings, type ApplicationSettingsValues } from '../sections/application-settings';
import { vendorBackendType, type ApplicationType, type Vendor } from './application-flow';

/**
 * The application wizard's state: the shared wizard state (its `settings` hold the vendor backend's
 * and rule's fields, its `options` the description and URL typed on the settings step, so the
 * shared review shows them) plus the application's kind and its API key step.
 */
export interface ApplicationWizardState extends KnocWizardState {
  application: { ApplicationType: ApplicationType; Vendor: Vendor };
  apiKey: ApiKeyStepValues;
}

/** The wizard's state when it starts and after a success. */
export function initialApplicationState(anywhereNotes: readonly [string, string]): ApplicationWizardState {
  const { ApplicationType, Vendor } = initialApplicationSettings();
  return {
    ...initialKnocWizardState('settings', 'allowlist'),
    application: { ApplicationType, Vendor },
    apiKey: initialApiKeyStepValues(anywhereNotes),
  };
}

/** The settings step's form values, gathered from the parts of the state they live in. */
export function settingsValuesOf(state: ApplicationWizardState): ApplicationSettingsValues {
  return {
    ...state.application,
    Description: state.options.Description,
    URL: state.options.URL,
    Backend: state.settings.Backend,
    Acl: state.settings.Acl,
  };
}

/**
 * The state change of an edit on the settings step. A new agent is chosen again when the backend
 * type the agent drives changed (the old one may not be capable of it).
 */
export function settingsPatch(
  state: ApplicationWizardState,
  values: ApplicationSettingsValues,
): Partial<ApplicationWizardState> {
  const type = vendorBackendType(values.ApplicationType, values.Vendor) ?? 'allowlist';
  return {
    application: { ApplicationType: values.ApplicationType, Vendor: values.Vendor },
    options: { ...state.options, Description: values.Description, URL: values.URL },
    settings: { Type: type, Backend: values.Backend, Acl: values.Acl },
    ...(type === state.settings.Type ? {} : { agentId: null }),
  };
}
