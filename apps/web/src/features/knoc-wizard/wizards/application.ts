import type { KnocWizardState } from '../knoc-wizard-state';
import { membersStep } from '../steps/members-step';
import {
  applicationAgentStep,
  applicationApiKeyStep,
  applicationOptionsStep,
  applicationReviewStep,
  applicationSettingsStep,
} from '../steps/application-steps';
import type { LinearStep, WizardStep } from '../wizard';
import { isStepDisabled, nextStep, previousStep, type ApplicationStep } from './application-flow';
import type { ApplicationWizardState } from './application-state';

/**
 * A shared step (typed for the shared state) as a step of this wizard, whose state extends it: the
 * step reads and changes only the shared part. (React's ComponentClass typing keeps TypeScript from
 * seeing that by itself.)
 */
function shared(step: LinearStep<KnocWizardState>): LinearStep<ApplicationWizardState> {
  return step as unknown as LinearStep<ApplicationWizardState>;
}

/** A step of the application wizard whose moves follow the application type (application-flow.ts). */
function branching(id: ApplicationStep, step: LinearStep<ApplicationWizardState>): WizardStep<ApplicationWizardState> {
  return {
    ...step,
    next: (state) => nextStep(id, state.application.ApplicationType),
    back: (state) => previousStep(id, state.application.ApplicationType),
    disabled: (state) => isStepDisabled(id, state.application.ApplicationType),
  };
}

/**
 * The application wizard (spec §2): 1 settings, 2 Knoc options, 3.1 API key (passive, passive+),
 * 3.2 agent (active, passive+), 4 users and groups, 5 review.
 */
export const applicationSteps: readonly WizardStep<ApplicationWizardState>[] = [
  branching('settings', applicationSettingsStep),
  branching('options', shared(applicationOptionsStep)),
  branching('apiKey', applicationApiKeyStep),
  branching('agent', applicationAgentStep),
  branching('members', shared(membersStep)),
  branching('review', applicationReviewStep),
];
