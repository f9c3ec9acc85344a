import { describe, expect, it } from 'vitest';
import i18n from '@/i18n/i18n';
import { zodFormErrors } from '@/lib/forms/zod-form-errors';
import { CHANGE_PASSWORD } from './change-password-validation';

const t = i18n.getFixedT('en');
const errors = (CurrentPassword: string, NewPassword: string, ConfirmPassword: string) =>
  zodFormErrors(CHANGE_PASSWORD, { CurrentPassword, NewPassword, ConfirmPassword }, (key) => t(key));

describe('change-password rules', () => {
  it.each([
    ['old', 'new-password', 'new-password', {}],
    [
      '',
      '',
      '',
      {
        CurrentPassword: 'You must enter your current password',
        NewPassword: 'You must enter a new password',
        ConfirmPassword: 'You must confirm the new password',
      },
    ],
    ['old', 'short', 'short', { NewPassword: 'Must be between 8 and 64 characters' }],
    ['old', 'x'.repeat(65), 'x'.repeat(65), { NewPassword: 'Must be between 8 and 64 characters' }],
    ['old', 'new-password', 'other-password', { ConfirmPassword: "Passwords don't match" }],
    [
      '',
      'new-password',
      'other',
      { CurrentPassword: 'You must enter your current password', ConfirmPassword: "Passwords don't match" },
    ],
  ])('current %j, new %j, confirmation %j give %j', (current, next, confirm, expected) => {
    expect(errors(current, next, confirm)).toEqual(expected);
  });
});
