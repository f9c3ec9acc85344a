import type { BackendType } from '@postern/protocol';
import { typeAndAgentStep } from '../steps/agent-step';
import { optionsStep, settingsStep } from '../steps/form-steps';
import { membersStep } from '../steps/members-step';
import { reviewStep } from '../steps/review-step';
import { linearSteps } from '../wizard';
import type { KnocWizardDefinition } from './definition';

/** The kernel sets a Linux knoc adds addresses to: ipset (iptables rules) or nftables sets. */
const LINUX_TYPES = ['ipset', 'nftables'] as const satisfies readonly BackendType[];

/**
 * Linux host or firewall (spec §2): an ipset or nftables backend; type and agent, settings (the
 * sets; for nftables first the table), options, members, review.
 */
export const linuxWizard: KnocWizardDefinition = {
  types: LINUX_TYPES,
  steps: linearSteps([
    typeAndAgentStep(LINUX_TYPES),
    settingsStep(LINUX_TYPES, { typeChosenBefore: true }),
    optionsStep,
    membersStep,
    reviewStep,
  ]),
};
