import type { TFunction } from 'i18next';
import type { FormErrors } from '@mantine/form';
import { LoginBody } from '@postern/protocol';

/** The fields both login forms ask for. */
export interface Credentials {
  UserName: string;
  Password: string;
}

/** The rules of those fields, taken from the shared request schema so form and server agree. */
const CREDENTIALS = LoginBody.pick({ UserName: true, Password: true });

const REQUIRED_KEY: Record<keyof Credentials, string> = {
  UserName: 'login.usernameRequired',
  Password: 'login.passwordRequired',
};

/**
 * Form errors for a login form: an empty field gets the spec's "You must specify …" text, an
 * oversized one a "too long" text.
 */
export function credentialErrors(values: Credentials, t: TFunction): FormErrors {
  const result = CREDENTIALS.safeParse(values);
  if (result.success) return {};
  const errors: FormErrors = {};
  for (const issue of result.error.issues) {
    const field = issue.path[0];
    if ((field !== 'UserName' && field !== 'Password') || errors[field] !== undefined) continue;
    errors[field] = issue.code === 'too_big' ? t('form.tooLong') : t(REQUIRED_KEY[field]);
  }
  return errors;
}
