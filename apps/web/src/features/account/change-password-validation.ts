import { z } from 'zod';
import { ErrorCodes, NewPassword } from '@postern/protocol';

/** The change-password dialog's fields (spec §3: the dialog adds CurrentPassword and ConfirmPassword). */
export interface ChangePasswordValues {
  CurrentPassword: string;
  NewPassword: string;
  ConfirmPassword: string;
}

/**
 * The spec's rules (§5): the current password is required; the new one is required and 8–64
 * characters (the shared NewPassword schema, so the dialog and the server agree); the confirmation
 * is required and equal to it ("Passwords don't match"). Messages are i18n keys.
 */
export const CHANGE_PASSWORD = z
  .object({
    CurrentPassword: z.string().min(1, 'account.currentPasswordRequired'),
    NewPassword: z.string().min(1, 'account.newPasswordRequired').pipe(NewPassword),
    ConfirmPassword: z.string().min(1, 'account.confirmPasswordRequired'),
  })
  .refine((values) => values.ConfirmPassword === '' || values.ConfirmPassword === values.NewPassword, {
    path: ['ConfirmPassword'],
    message: ErrorCodes.passwordsDontMatch,
    // Checked even when another field is wrong, as the dialog always did.
    when: ({ value }) => typeof value === 'object' && value !== null,
  });
