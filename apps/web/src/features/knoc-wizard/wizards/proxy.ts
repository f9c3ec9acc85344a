import { agentStep } from '../steps/agent-step';
import { optionsStep, settingsStep } from '../steps/form-steps';
import { membersStep } from '../steps/members-step';
import { reviewStep } from '../steps/review-step';
import { linearSteps } from '../wizard';
import type { KnocWizardDefinition } from './definition';

/** Proxy (spec §2): an agent with the haproxy capability, then haproxy or knocproxy settings. */
export const proxyWizard: KnocWizardDefinition = {
  types: ['haproxy', 'knocproxy'],
  steps: linearSteps([
    agentStep('haproxy'),
    settingsStep(['haproxy', 'knocproxy']),
    optionsStep,
    membersStep,
    reviewStep,
  ]),
};
