import type { FormErrors } from '@mantine/form';
import type { z } from 'zod';

/** Turns a message key into the text a person reads (usually i18next's `t`). */
export type Translate = (key: string) => string;

/**
 * Picks the translation key for one zod issue, or undefined to use the issue's own message (which
 * is then treated as a key: `err.passwordLength`, `account.newPasswordRequired`).
 */
export type IssueKey = (issue: z.core.$ZodIssue) => string | undefined;

/** The dotted form path of an issue ("Config.fortios.Url", "Members.0.Name"). */
function issuePath(issue: z.core.$ZodIssue): string {
  return issue.path.map(String).join('.');
}

/**
 * Validates `values` with `schema` and returns Mantine form errors: the first issue of each field,
 * translated. Issues about the whole object (empty path) are left out: a form has no field for them.
 */
export function zodFormErrors(
  schema: z.ZodType,
  values: unknown,
  translate: Translate,
  issueKey: IssueKey = () => undefined,
): FormErrors {
  const result = schema.safeParse(values);
  if (result.success) return {};
  const errors: FormErrors = {};
  for (const issue of result.error.issues) {
    const path = issuePath(issue);
    if (path === '' || errors[path] !== undefined) continue;
    errors[path] = translate(issueKey(issue) ?? issue.message);
  }
  return errors;
}

/**
 * The texts of the protocol's generic name rule (RequiredName: required, at most 200 characters, no
 * control characters), whose zod messages are developer English: an empty name says `required`,
 * an over-long one "too long", a control character `controlCharacters`. Issues that carry an `err.`
 * key of their own (password length, mismatch, DN) keep it.
 */
export function nameIssueKey(keys: { required: string; controlCharacters: string }): IssueKey {
  return (issue) => {
    if (issue.message.startsWith('err.')) return undefined;
    if (issue.code === 'too_small') return keys.required;
    if (issue.code === 'too_big') return 'form.tooLong';
    if (issue.code === 'invalid_format') return keys.controlCharacters;
    return undefined;
  };
}
