import type { ReactNode } from 'react';
import { Button, PasswordInput, Stack, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { FormError } from '../../../components/FormError';
import { renderError } from '../../../lib/api/render-error';
import { useZodForm } from '@/lib/forms/use-zod-form';
import { CREDENTIALS, credentialIssueKey, type Credentials } from '../credentials-validation';

/** Props of {@link CredentialsForm}. */
export interface CredentialsFormProps {
  pending: boolean;
  /** The last failure of the sign-in call, shown as "Error: …" inside the form. */
  error: unknown;
  onSubmit: (values: Credentials) => void;
  /** More controls between the password and the button (the user form's kiosk box). */
  children?: ReactNode;
}

/**
 * Username and password with the shared sign-in rules. Both fields are required (aria-required)
 * without an asterisk, so their accessible names stay exactly "Username" and "Password".
 */
export function CredentialsForm({ pending, error, onSubmit, children }: CredentialsFormProps) {
  const { t } = useTranslation();
  const form = useZodForm<Credentials>({
    schema: CREDENTIALS,
    issueKey: credentialIssueKey,
    initialValues: { UserName: '', Password: '' },
  });

  return (
    <form noValidate onSubmit={form.onSubmit(onSubmit)}>
      <Stack>
        {error === null ? null : <FormError message={renderError(error, t)} />}
        <TextInput
          label={t('login.username')}
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          required
          withAsterisk={false}
          {...form.getInputProps('UserName')}
        />
        <PasswordInput
          label={t('login.password')}
          autoComplete="current-password"
          required
          withAsterisk={false}
          {...form.getInputProps('Password')}
        />
        {children}
        <Button type="submit" fullWidth loading={pending}>
          {t('login.submit')}
        </Button>
      </Stack>
    </form>
  );
}
