import type { TFunction } from 'i18next';
import type { FormErrors } from '@mantine/form';
import type { z } from 'zod';

/** The login fields the forms validate; both login bodies have them. */
type CredentialField = 'UserName' | 'Password';

const REQUIRED_KEY: Record<CredentialField, string> = {
  UserName: 'login.usernameRequired',
  Password: 'login.passwordRequired',
};

/**
 * Form errors for a login form, from the shared request schema (so the form and the server agree
 * on the rule): an empty field gets the spec's "You must specify …" text, an oversized one a
 * "too long" text.
 */
export function credentialErrors(schema: z.ZodType, values: unknown, t: TFunction): FormErrors {
  const result = schema.safeParse(values);
  if (result.success) return {};
  const errors: FormErrors = {};
  for (const issue of result.error.issues) {
    const field = issue.path[0];
    if ((field !== 'UserName' && field !== 'Password') || errors[field] !== undefined) continue;
    errors[field] = issue.code === 'too_big' ? t('form.tooLong') : t(REQUIRED_KEY[field]);
  }
  return errors;
}
