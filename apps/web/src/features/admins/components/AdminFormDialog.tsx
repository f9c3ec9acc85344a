import { Checkbox, NativeSelect, PasswordInput, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import {
  ADMIN_AUTH_TYPES,
  AdminCreateBody,
  AdminUpdateBody,
  type AdminAuthType,
  type AdminRecord,
} from '@postern/protocol';
import { FormDialog } from '@/components/dialogs/FormDialog';
import { useZodForm } from '@/lib/forms/use-zod-form';
import { nameIssueKey } from '@/lib/forms/zod-form-errors';
import {
  adminFieldLocks,
  adminFormValues,
  hasPassword,
  hasTotp,
  toAdminCreateBody,
  toAdminUpdateBody,
  type AdminFormValues,
} from '../admin-rules';
import { adminsApi } from '../api';

/** The name rules' texts; password and DN issues carry `err.` keys of their own. */
const ADMIN_ISSUE_KEY = nameIssueKey({
  required: 'adminsScreen.form.required',
  controlCharacters: 'adminsScreen.form.controlCharacters',
});

/** Props of {@link AdminFormDialog}. */
export interface AdminFormDialogProps {
  /** The admin to edit; undefined to create one. */
  admin?: AdminRecord;
  /** Whether `admin` is the signed-in admin (who cannot turn off their own 2FA or sign-in). */
  own: boolean;
  onClose: () => void;
}

/**
 * Create or edit an admin (spec: Name, UserName, AuthType required; password rules as for users;
 * TOTPEnabled and LoginEnabled default true). The sign-in name and kind of account are fixed on edit.
 * Mount it per opening: every opening starts from the admin's current values.
 */
export function AdminFormDialog({ admin, own, onClose }: AdminFormDialogProps) {
  const { t } = useTranslation();
  const create = adminsApi.useCreate();
  const update = adminsApi.useUpdate();
  const pending = create.isPending || update.isPending;
  const locks = adminFieldLocks(admin, own);
  const form = useZodForm<AdminFormValues>({
    // Edit validates the update body (no password needed), so the form refuses what the server would.
    schema:
      admin === undefined
        ? AdminCreateBody
        : z.preprocess((values) => ({ ...(values as object), ID: admin.ID }), AdminUpdateBody),
    issueKey: ADMIN_ISSUE_KEY,
    initialValues: adminFormValues(admin),
  });
  const { AuthType } = form.values;

  const save = (values: AdminFormValues) => {
    if (pending) return;
    form.clearFailure();
    const callbacks = {
      onSuccess: () => {
        const key = admin === undefined ? 'adminsScreen.msg.adminCreated' : 'adminsScreen.msg.adminUpdated';
        notifications.show({ color: 'green', message: t(key, { name: values.Name.trim() }) });
        onClose();
      },
      // A refusal naming a field (UserName taken, LoginEnabled on yourself) shows there; others above the form.
      onError: form.refuse,
    };
    if (admin === undefined) create.mutate(toAdminCreateBody(values), callbacks);
    else update.mutate({ id: admin.ID, body: toAdminUpdateBody(admin.ID, values) }, callbacks);
  };

  const changeAuthType = (value: string) => {
    form.setFieldValue('AuthType', value as AdminAuthType);
    // A password typed for a local account must not linger, unseen, behind another kind of account.
    form.setFieldValue('PlainPassword', '');
    form.setFieldValue('ConfirmPassword', '');
  };

  return (
    <FormDialog
      opened
      title={
        admin === undefined
          ? t('adminsScreen.form.createTitle')
          : t('adminsScreen.form.editTitle', { name: admin.Name })
      }
      onClose={onClose}
      onSubmit={form.onSubmit(save)}
      pending={pending}
      error={form.failure}
    >
      <TextInput label={t('adminsScreen.form.name')} required data-autofocus {...form.getInputProps('Name')} />
      <TextInput
        label={t('adminsScreen.form.userName')}
        required
        disabled={locks.identity}
        autoComplete="off"
        {...form.getInputProps('UserName')}
      />
      <NativeSelect
        label={t('adminsScreen.form.authType')}
        required
        disabled={locks.identity}
        data={ADMIN_AUTH_TYPES.map((value) => ({ value, label: t(`adminsScreen.authTypes.${value}`) }))}
        {...form.getInputProps('AuthType')}
        onChange={(event) => changeAuthType(event.currentTarget.value)}
      />
      {hasPassword(AuthType) ? (
        <>
          <PasswordInput
            label={t('adminsScreen.form.password')}
            description={admin === undefined ? undefined : t('adminsScreen.form.passwordKeep')}
            required={admin === undefined}
            autoComplete="new-password"
            {...form.getInputProps('PlainPassword')}
          />
          <PasswordInput
            label={t('adminsScreen.form.confirmPassword')}
            autoComplete="new-password"
            {...form.getInputProps('ConfirmPassword')}
          />
        </>
      ) : null}
      {AuthType === 'LDAP' ? (
        <TextInput label={t('adminsScreen.form.dn')} required {...form.getInputProps('ThirdPartyAuth.DN')} />
      ) : null}
      {hasTotp(AuthType) ? (
        <Checkbox
          label={t('adminsScreen.form.totpEnabled')}
          description={locks.TOTPEnabled === null ? undefined : t(locks.TOTPEnabled)}
          disabled={locks.TOTPEnabled !== null}
          {...form.getInputProps('TOTPEnabled', { type: 'checkbox' })}
        />
      ) : (
        <Text size="sm" c="dimmed">
          {t('adminsScreen.form.samlTotp')}
        </Text>
      )}
      <Checkbox
        label={t('adminsScreen.form.loginEnabled')}
        description={locks.LoginEnabled === null ? undefined : t(locks.LoginEnabled)}
        disabled={locks.LoginEnabled !== null}
        {...form.getInputProps('LoginEnabled', { type: 'checkbox' })}
      />
    </FormDialog>
  );
}
