import { useState } from 'react';
import { Alert, Checkbox, Group, NumberInput, PasswordInput, Radio, SimpleGrid, TextInput } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { USER_AUTH_TYPES, USER_SESSION_MINUTES_MAX, type UserAuthType } from '@postern/protocol';
import type { ZodForm } from '@/lib/forms/use-zod-form';
import { deriveUserName, offersTotp, type UserFormValues } from '../user-form';
import { ApiKeyFields } from './ApiKeyFields';

/** Props of {@link UserFormFields}. */
export interface UserFormFieldsProps {
  form: ZodForm<UserFormValues>;
  mode: 'create' | 'edit';
  maxSessionLimit: number | null;
}

/**
 * The user dialog's fields. The kind of account decides the rest: a password for local accounts,
 * a DN for LDAP, a warning for SAML, an optional API key for apikey users (create only); TOTP only
 * for local and LDAP. The username follows the name until edited, and is fixed on edit (spec §4).
 */
export function UserFormFields({ form, mode, maxSessionLimit }: UserFormFieldsProps) {
  const { t } = useTranslation();
  const [userNameEdited, setUserNameEdited] = useState(false);
  const { AuthType: authType } = form.getValues();
  const editing = mode === 'edit';

  return (
    <>
      <TextInput
        label={t('usersScreen.form.name')}
        required
        data-autofocus
        {...form.getInputProps('Name')}
        onChange={(event) => {
          const name = event.currentTarget.value;
          form.setFieldValue('Name', name);
          if (!editing && !userNameEdited) form.setFieldValue('UserName', deriveUserName(name));
        }}
      />
      <TextInput
        label={t('usersScreen.form.userName')}
        required
        disabled={editing}
        description={editing ? t('usersScreen.form.userNameFixed') : undefined}
        autoComplete="off"
        {...form.getInputProps('UserName')}
        onChange={(event) => {
          setUserNameEdited(true);
          form.setFieldValue('UserName', event.currentTarget.value);
        }}
      />
      <TextInput label={t('usersScreen.form.company')} {...form.getInputProps('Company')} />
      <Radio.Group
        label={t('usersScreen.form.authType')}
        required
        {...form.getInputProps('AuthType')}
        onChange={(value) => form.setFieldValue('AuthType', value as UserAuthType)}
      >
        <Group gap="md" mt={4}>
          {USER_AUTH_TYPES.map((type) => (
            // The kind of account cannot change after creation (the server refuses it).
            <Radio key={type} value={type} label={t(`usersScreen.authTypes.${type}`)} disabled={editing} />
          ))}
        </Group>
      </Radio.Group>
      {authType === 'SAML' ? (
        <Alert color="yellow" icon={<IconAlertTriangle size={18} aria-hidden />}>
          {t('usersScreen.form.samlWarning')}
        </Alert>
      ) : null}
      <SimpleGrid cols={{ base: 1, xs: 2 }}>
        <NumberInput
          label={t('usersScreen.form.duration')}
          required
          min={1}
          max={USER_SESSION_MINUTES_MAX}
          allowDecimal={false}
          allowNegative={false}
          {...form.getInputProps('Duration')}
        />
        <NumberInput
          label={t('usersScreen.form.sessionLimit')}
          required={maxSessionLimit !== null}
          min={1}
          max={maxSessionLimit ?? undefined}
          allowDecimal={false}
          allowNegative={false}
          description={
            maxSessionLimit === null
              ? t('usersScreen.form.sessionLimitUnlimited')
              : t('usersScreen.form.sessionLimitMax', { max: maxSessionLimit })
          }
          {...form.getInputProps('SessionLimit')}
        />
      </SimpleGrid>
      {authType === 'local' ? (
        <>
          <PasswordInput
            label={t('usersScreen.form.password')}
            required={!editing}
            autoComplete="new-password"
            description={editing ? t('usersScreen.form.passwordKeep') : undefined}
            {...form.getInputProps('PlainPassword')}
          />
          <PasswordInput
            label={t('usersScreen.form.confirmPassword')}
            required={!editing}
            autoComplete="new-password"
            {...form.getInputProps('ConfirmPassword')}
          />
        </>
      ) : null}
      {authType === 'LDAP' ? (
        <TextInput label={t('usersScreen.form.dn')} required {...form.getInputProps('ThirdPartyAuth.DN')} />
      ) : null}
      {authType === 'apikey' && !editing ? <ApiKeyFields form={form} /> : null}
      <TextInput
        type="datetime-local"
        label={t('usersScreen.form.validUntil')}
        description={t('usersScreen.form.validUntilHint')}
        {...form.getInputProps('ValidUntil')}
      />
      {offersTotp(authType) ? (
        <Checkbox label={t('usersScreen.form.totp')} {...form.getInputProps('TOTPEnabled', { type: 'checkbox' })} />
      ) : null}
    </>
  );
}
