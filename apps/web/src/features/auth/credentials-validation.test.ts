import { describe, expect, it } from 'vitest';
import i18n from '@/i18n/i18n';
import { zodFormErrors } from '@/lib/forms/zod-form-errors';
import { CREDENTIALS, credentialIssueKey } from './credentials-validation';

const t = i18n.getFixedT('en');
/** Longer than the protocol's 1024-character limit on credentials. */
const TOO_LONG = 1025;
const errors = (UserName: string, Password: string) =>
  zodFormErrors(CREDENTIALS, { UserName, Password }, (key) => t(key), credentialIssueKey);

describe('credential rules', () => {
  it.each([
    ['ada', 'secret', {}],
    ['', '', { UserName: 'You must specify a username', Password: 'You must specify a password' }],
    ['   ', 'secret', { UserName: 'You must specify a username' }],
    ['a'.repeat(TOO_LONG), 'secret', { UserName: 'This is too long' }],
    ['ada', 'p'.repeat(TOO_LONG), { Password: 'This is too long' }],
  ])('user %j with password %j gives %j', (userName, password, expected) => {
    expect(errors(userName, password)).toEqual(expected);
  });
});
