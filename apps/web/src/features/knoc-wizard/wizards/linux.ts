import { agentStep } from '../steps/agent-step';
import { optionsStep, settingsStep } from '../steps/form-steps';
import { membersStep } from '../steps/members-step';
import { reviewStep } from '../steps/review-step';
import { linearSteps } from '../wizard';
import type { KnocWizardDefinition } from './definition';

/** Linux host or firewall (spec §2): an ipset backend; agent, settings, options, members, review. */
export const linuxWizard: KnocWizardDefinition = {
  types: ['ipset'],
  steps: linearSteps([agentStep('ipset'), settingsStep(['ipset']), optionsStep, membersStep, reviewStep]),
};
