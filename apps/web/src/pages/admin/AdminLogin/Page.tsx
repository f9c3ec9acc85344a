import { Anchor, Center, Stack } from '@mantine/core';
import { Link, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { AuthLayout } from '../../../components/AuthLayout';
import { FormError } from '../../../components/FormError';
import { CredentialsForm } from '../../../features/auth/components/CredentialsForm';
import { SignInMethods } from '../../../features/auth/components/SignInMethods';
import { useEnterStartsSso, useSsoMethods } from '../../../features/auth/sso';
import { useAdminSignIn } from '../../../features/auth/use-sign-in';
import { PasskeySignInButton } from '../../../features/passkeys/components/PasskeySignInButton';
import { usePasswordlessAvailable, usePasswordlessSignIn } from '../../../features/passkeys/use-passwordless-sign-in';
import { translateErrorKey } from '../../../lib/api/render-error';

/**
 * The admin login (/admin): local credentials, with admin SSO first when it is set up, and a passkey
 * sign-in when the server allows it for admins.
 */
export default function AdminLoginPage() {
  const { t } = useTranslation();
  const [searchParams] = useSearchParams();
  const queryError = searchParams.get('error');
  const signIn = useAdminSignIn();
  const ssoMethods = useSsoMethods('admin');
  useEnterStartsSso(ssoMethods?.[0]?.start);
  const passkeyOffered = usePasswordlessAvailable('admin');
  const passkeySignIn = usePasswordlessSignIn('admin');

  const localForm = (
    <CredentialsForm
      pending={signIn.pending}
      error={signIn.error}
      onSubmit={({ UserName, Password }) => signIn.submit({ UserName, Password })}
    />
  );

  return (
    <AuthLayout heading={t('adminLogin.heading')} intro={t('adminLogin.intro')}>
      <Stack>
        {queryError === null || queryError === '' ? null : <FormError message={translateErrorKey(queryError, t)} />}
        <SignInMethods
          ssoMethods={ssoMethods}
          passkey={passkeyOffered ? <PasskeySignInButton signIn={passkeySignIn} /> : undefined}
        >
          {localForm}
        </SignInMethods>
        <Center>
          <Anchor component={Link} to="/" size="sm">
            {t('adminLogin.userLink')}
          </Anchor>
        </Center>
      </Stack>
    </AuthLayout>
  );
}
