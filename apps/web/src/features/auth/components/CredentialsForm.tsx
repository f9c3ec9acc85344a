import { Button, Checkbox, PasswordInput, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { AdminLoginBody, LoginBody } from '@postern/protocol';
import { useTranslation } from 'react-i18next';
import { FormError } from '../../../components/FormError';
import { renderError } from '../../../lib/api/render-error';
import { credentialErrors } from '../credentials-validation';

/** The values of both login forms; the admin form has no kiosk box and never sends KioskMode. */
interface CredentialsValues {
  UserName: string;
  Password: string;
  KioskMode: boolean;
}

/** Props of {@link CredentialsForm}. */
export interface CredentialsFormProps {
  /** Shows "This is a public computer" (the user form only). */
  withKiosk: boolean;
  pending: boolean;
  /** The last failure of the sign-in call, shown as "Error: …" inside the form. */
  error: unknown;
  onSubmit: (values: CredentialsValues) => void;
}

/**
 * Username, password (and for users the kiosk box) with the shared sign-in rules. Both fields are
 * required (aria-required) without an asterisk, so their accessible names stay exactly
 * "Username" and "Password".
 */
export function CredentialsForm({ withKiosk, pending, error, onSubmit }: CredentialsFormProps) {
  const { t } = useTranslation();
  const form = useForm<CredentialsValues>({
    mode: 'controlled',
    initialValues: { UserName: '', Password: '', KioskMode: false },
    validate: (values) => credentialErrors(withKiosk ? LoginBody : AdminLoginBody, values, t),
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
        {withKiosk ? (
          <Checkbox
            label={t('login.kiosk')}
            description={t('login.kioskHint')}
            {...form.getInputProps('KioskMode', { type: 'checkbox' })}
          />
        ) : null}
        <Button type="submit" fullWidth loading={pending}>
          {t('login.submit')}
        </Button>
      </Stack>
    </form>
  );
}
