import { Anchor, Center, Stack } from '@mantine/core';
import { Link, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { AuthLayout } from '../../../components/AuthLayout';
import { FormError } from '../../../components/FormError';
import { CredentialsForm } from '../../../features/auth/components/CredentialsForm';
import { useAdminSignIn } from '../../../features/auth/use-sign-in';
import { translateErrorKey } from '../../../lib/api/render-error';

/** The admin login (/admin). */
export default function AdminLoginPage() {
  const { t } = useTranslation();
  const [searchParams] = useSearchParams();
  const queryError = searchParams.get('error');
  const signIn = useAdminSignIn();

  return (
    <AuthLayout heading={t('adminLogin.heading')} intro={t('adminLogin.intro')}>
      <Stack>
        {queryError === null || queryError === '' ? null : <FormError message={translateErrorKey(queryError, t)} />}

        {/* Admin SSO goes here (a later issue), shown only when GET /api/admin/saml/metadata answers. */}

        <CredentialsForm
          withKiosk={false}
          pending={signIn.pending}
          error={signIn.error}
          onSubmit={({ UserName, Password }) => signIn.submit({ UserName, Password })}
        />
        <Center>
          <Anchor component={Link} to="/" size="sm">
            {t('adminLogin.userLink')}
          </Anchor>
        </Center>
      </Stack>
    </AuthLayout>
  );
}
