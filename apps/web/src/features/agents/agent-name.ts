import type { IssueKey } from '@/lib/forms/zod-form-errors';

/**
 * The text key for each way an agent name can break the protocol's rule (RequiredName: 1–200
 * characters after trimming, no control characters). Zod's own messages are English sentences
 * meant for developers; the form shows these instead.
 */
export const agentNameIssueKey: IssueKey = (issue) => {
  switch (issue.code) {
    case 'too_small':
      return 'agentsScreen.form.nameRequired';
    case 'too_big':
      return 'form.tooLong';
    case 'invalid_format':
      return 'agentsScreen.form.nameControlCharacters';
    default:
      return undefined;
  }
};
