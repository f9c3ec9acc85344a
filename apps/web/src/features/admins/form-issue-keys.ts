import type { IssueKey } from '@/lib/forms/zod-form-errors';

/**
 * Texts for the protocol's generic string rules, whose zod messages are English developer text: an
 * empty required name says "required", an over-long one "too long", a control character says so.
 * Issues that carry an `err.` key of their own (password length, mismatch, DN) keep it.
 */
export const adminIssueKey: IssueKey = (issue) => {
  if (issue.message.startsWith('err.')) return undefined;
  if (issue.code === 'too_small') return 'adminsScreen.form.required';
  if (issue.code === 'too_big') return 'form.tooLong';
  if (issue.code === 'invalid_format') return 'adminsScreen.form.controlCharacters';
  return undefined;
};
