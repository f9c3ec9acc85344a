import { Anchor, Center, Stack } from '@mantine/core';
import { Link, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { AuthLayout } from '../../../components/AuthLayout';
import { FormError } from '../../../components/FormError';
import { CredentialsForm } from '../../../features/auth/components/CredentialsForm';
import { useUserSignIn } from '../../../features/auth/use-sign-in';
import { translateErrorKey } from '../../../lib/api/render-error';

/** The user login (/): local credentials, the kiosk box, and a link to the admin console. */
export default function LoginPage() {
  const { t } = useTranslation();
  const [searchParams] = useSearchParams();
  const queryError = searchParams.get('error');
  const signIn = useUserSignIn();

  return (
    <AuthLayout heading={t('login.heading')}>
      <Stack>
        {/* Another page (a guard, a failed SSO round trip) sends people here with ?error=… */}
        {queryError === null || queryError === '' ? null : <FormError message={translateErrorKey(queryError, t)} />}

        {/*
          SSO goes here (a later issue): a "Sign in with SSO" button, shown only when
          GET /api/saml/metadata answers. When it is shown, the local form below becomes a collapsible
          section, and Enter with no focused field starts SSO.
        */}

        <CredentialsForm
          withKiosk
          pending={signIn.pending}
          error={signIn.error}
          onSubmit={({ UserName, Password, KioskMode }) => signIn.submit({ UserName, Password, KioskMode })}
        />
        <Center>
          <Anchor component={Link} to="/admin" size="sm">
            {t('login.adminLink')}
          </Anchor>
        </Center>
      </Stack>
    </AuthLayout>
  );
}
