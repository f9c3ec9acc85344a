import type { TFunction } from 'i18next';
import type { FormErrors } from '@mantine/form';
import { ErrorCodes, NewPassword } from '@postern/protocol';
import { translateErrorKey } from '../../lib/api/render-error';

/** The change-password dialog's fields (spec §3: the dialog adds CurrentPassword and ConfirmPassword). */
export interface ChangePasswordValues {
  CurrentPassword: string;
  NewPassword: string;
  ConfirmPassword: string;
}

/**
 * The spec's rules (§5): the current password is required; the new one is required and 8–64
 * characters (the shared NewPassword schema, so the dialog and the server agree); the confirmation
 * is required and equal to it ("Passwords don't match").
 */
export function changePasswordErrors(values: ChangePasswordValues, t: TFunction): FormErrors {
  const errors: FormErrors = {};
  if (values.CurrentPassword === '') errors.CurrentPassword = t('account.currentPasswordRequired');

  if (values.NewPassword === '') {
    errors.NewPassword = t('account.newPasswordRequired');
  } else {
    const result = NewPassword.safeParse(values.NewPassword);
    const message = result.error?.issues[0]?.message;
    if (message !== undefined) errors.NewPassword = translateErrorKey(message, t);
  }

  if (values.ConfirmPassword === '') errors.ConfirmPassword = t('account.confirmPasswordRequired');
  else if (values.ConfirmPassword !== values.NewPassword) {
    errors.ConfirmPassword = t(ErrorCodes.passwordsDontMatch);
  }
  return errors;
}
