import { Button, Group, Modal, PasswordInput, Stack } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { ErrorCodes } from '@postern/protocol';
import { FormError } from '../../../components/FormError';
import { hasErrorCode } from '../../../lib/api/api-error';
import { renderError } from '../../../lib/api/render-error';
import { useChangePasswordMutation } from '../api';
import { useZodForm } from '@/lib/forms/use-zod-form';
import { CHANGE_PASSWORD, type ChangePasswordValues } from '../change-password-validation';
import { usePasswordStrength } from '../use-password-strength';
import { PasswordStrengthMeter } from './PasswordStrengthMeter';

/** Props of {@link ChangePasswordDialog}. */
export interface ChangePasswordDialogProps {
  opened: boolean;
  onClose: () => void;
  /** The person's own names and user name: a password made of them rates weaker. */
  userInputs: readonly string[];
}

/** Which field a refusal of PUT /api/password is about, and what to say there; null for the dialog as a whole. */
function fieldOfRefusal(failure: unknown): { field: keyof ChangePasswordValues; key: string } | null {
  if (hasErrorCode(failure, ErrorCodes.invalidCredentials) && failure.extra === 'ExistingPassword') {
    return { field: 'CurrentPassword', key: 'account.currentPasswordWrong' };
  }
  if (hasErrorCode(failure, ErrorCodes.passwordLength)) return { field: 'NewPassword', key: ErrorCodes.passwordLength };
  return null;
}

/** The form inside the dialog; mounted only while the dialog is open, so every opening starts empty. */
function ChangePasswordForm({ onClose, userInputs }: Omit<ChangePasswordDialogProps, 'opened'>) {
  const { t } = useTranslation();
  const mutation = useChangePasswordMutation();
  const form = useZodForm<ChangePasswordValues>({
    schema: CHANGE_PASSWORD,
    initialValues: { CurrentPassword: '', NewPassword: '', ConfirmPassword: '' },
  });
  const strength = usePasswordStrength(form.values.NewPassword, userInputs, true);

  const submit = ({ CurrentPassword, NewPassword }: ChangePasswordValues) => {
    mutation.mutate(
      { ExistingPassword: CurrentPassword, NewPassword },
      {
        onSuccess: () => {
          notifications.show({ color: 'green', message: t('account.passwordChanged') });
          onClose();
        },
        onError: (failure) => {
          const refusal = fieldOfRefusal(failure);
          if (refusal !== null) form.setFieldError(refusal.field, t(refusal.key));
        },
      },
    );
  };

  // Failures stay inside the dialog (spec §8): on their field when they concern one, else above the form.
  const dialogFailure = mutation.isError && fieldOfRefusal(mutation.error) === null ? mutation.error : null;

  return (
    <form noValidate onSubmit={form.onSubmit(submit)}>
      <Stack>
        {dialogFailure === null ? null : <FormError message={renderError(dialogFailure, t)} />}
        <PasswordInput
          label={t('account.currentPassword')}
          autoComplete="current-password"
          required
          withAsterisk={false}
          data-autofocus
          {...form.getInputProps('CurrentPassword')}
        />
        <Stack gap="xs">
          <PasswordInput
            label={t('account.newPassword')}
            autoComplete="new-password"
            required
            withAsterisk={false}
            {...form.getInputProps('NewPassword')}
          />
          <PasswordStrengthMeter strength={strength} />
        </Stack>
        <PasswordInput
          label={t('account.confirmPassword')}
          autoComplete="new-password"
          required
          withAsterisk={false}
          {...form.getInputProps('ConfirmPassword')}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {t('account.cancel')}
          </Button>
          <Button type="submit" loading={mutation.isPending}>
            {t('account.submit')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/**
 * Change password (local accounts only): current password, new password with its strength meter,
 * confirmation. Success closes the dialog and says so in a notification.
 */
export function ChangePasswordDialog({ opened, onClose, userInputs }: ChangePasswordDialogProps) {
  const { t } = useTranslation();
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={t('account.changePassword')}
      centered
      closeButtonProps={{ 'aria-label': t('account.close') }}
    >
      {opened ? <ChangePasswordForm onClose={onClose} userInputs={userInputs} /> : null}
    </Modal>
  );
}
