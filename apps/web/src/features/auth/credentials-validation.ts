import { LoginBody } from '@postern/protocol';
import type { IssueKey } from '@/lib/forms/zod-form-errors';

/** The fields both login forms ask for. */
export interface Credentials {
  UserName: string;
  Password: string;
}

/** The rules of those fields, taken from the shared request schema so form and server agree. */
export const CREDENTIALS = LoginBody.pick({ UserName: true, Password: true });

const REQUIRED_KEY: Record<keyof Credentials, string> = {
  UserName: 'login.usernameRequired',
  Password: 'login.passwordRequired',
};

/**
 * The text of a login form's field error: an empty field gets the spec's "You must specify …"
 * text, an oversized one a "too long" text.
 */
export const credentialIssueKey: IssueKey = (issue) => {
  if (issue.code === 'too_big') return 'form.tooLong';
  const field = issue.path[0];
  return field === 'UserName' || field === 'Password' ? REQUIRED_KEY[field] : undefined;
};
