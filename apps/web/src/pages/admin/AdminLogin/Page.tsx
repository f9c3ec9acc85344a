import { useCallback } from 'react';
import { Anchor, Center, Stack } from '@mantine/core';
import { Link, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { AuthLayout } from '../../../components/AuthLayout';
import { FormError } from '../../../components/FormError';
import { CredentialsForm } from '../../../features/auth/components/CredentialsForm';
import { SignInMethods } from '../../../features/auth/components/SignInMethods';
import { startSso, useEnterStartsSso, useSsoAvailable } from '../../../features/auth/sso';
import { useAdminSignIn } from '../../../features/auth/use-sign-in';
import { translateErrorKey } from '../../../lib/api/render-error';

/** The admin login (/admin): local credentials, with admin SSO first when it is set up. */
export default function AdminLoginPage() {
  const { t } = useTranslation();
  const [searchParams] = useSearchParams();
  const queryError = searchParams.get('error');
  const signIn = useAdminSignIn();
  const ssoAvailable = useSsoAvailable('admin');
  const startAdminSso = useCallback(() => startSso('admin'), []);
  useEnterStartsSso(ssoAvailable === true, startAdminSso);

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
        <SignInMethods ssoAvailable={ssoAvailable} onStartSso={startAdminSso}>
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
