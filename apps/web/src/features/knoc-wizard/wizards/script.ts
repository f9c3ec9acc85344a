import { agentStep } from '../steps/agent-step';
import { envVarsStep, optionsStep, settingsStep } from '../steps/form-steps';
import { membersStep } from '../steps/members-step';
import { reviewStep } from '../steps/review-step';
import { linearSteps } from '../wizard';
import type { KnocWizardDefinition } from './definition';

/** Script (spec §2): an agent with scripts enabled and version ≥ 1.6.0 (or unknown), then variables. */
export const scriptWizard: KnocWizardDefinition = {
  types: ['script'],
  steps: linearSteps([
    agentStep('script', { requireVersion: true }),
    settingsStep(['script']),
    optionsStep,
    envVarsStep,
    membersStep,
    reviewStep,
  ]),
};
