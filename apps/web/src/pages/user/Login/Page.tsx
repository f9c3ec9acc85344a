import { useEffect, useState } from 'react';
import { Anchor, Center, Stack } from '@mantine/core';
import { Link, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { AuthLayout } from '../../../components/AuthLayout';
import { FormError } from '../../../components/FormError';
import { CredentialsForm } from '../../../features/auth/components/CredentialsForm';
import { KioskCheckbox } from '../../../features/auth/components/KioskCheckbox';
import { SignInMethods } from '../../../features/auth/components/SignInMethods';
import { hasSso, useEnterStartsSso, useSsoMethods } from '../../../features/auth/sso';
import { useUserSignIn } from '../../../features/auth/use-sign-in';
import { PasskeySignInButton } from '../../../features/passkeys/components/PasskeySignInButton';
import { usePasswordlessAvailable, usePasswordlessSignIn } from '../../../features/passkeys/use-passwordless-sign-in';
import { translateErrorKey } from '../../../lib/api/render-error';
import { holdReferrer } from '../../../features/auth/referrer';
import { preloadUserPages } from '../../../app/routes/user-pages';

/**
 * The user login (/): local credentials and the kiosk box, SSO first when it is set up (the local
 * form then folds away), a passkey sign-in when the server allows it, and a link to the admin console. A `?referrer=` is held for after the
 * sign-in; the user pages follow it when it belongs to one of the person's ACLs.
 */
export default function LoginPage() {
  const { t } = useTranslation();
  const [searchParams] = useSearchParams();
  const queryError = searchParams.get('error');
  const referrer = searchParams.get('referrer');
  const signIn = useUserSignIn();
  const [kioskMode, setKioskMode] = useState(false);
  const ssoMethods = useSsoMethods('user', kioskMode);
  useEnterStartsSso(ssoMethods?.[0]?.start);
  const passkeyOffered = usePasswordlessAvailable('user');
  const passkeySignIn = usePasswordlessSignIn('user', kioskMode);
  // Held for after the sign-in, whichever way it goes (password, second factor, SSO round trip).
  useEffect(() => holdReferrer(referrer), [referrer]);

  const kioskBox = <KioskCheckbox checked={kioskMode} onChange={setKioskMode} />;
  const localForm = (
    <CredentialsForm
      pending={signIn.pending}
      error={signIn.error}
      onSubmit={({ UserName, Password }) => {
        preloadUserPages();
        signIn.submit({ UserName, Password, KioskMode: kioskMode });
      }}
    >
      {/* With SSO the box sits outside the folded form, so that it applies to SSO too. */}
      {hasSso(ssoMethods) ? null : kioskBox}
    </CredentialsForm>
  );

  return (
    <AuthLayout heading={t('login.heading')}>
      <Stack>
        {/* Another page (a guard, a failed SSO round trip) sends people here with ?error=… */}
        {queryError === null || queryError === '' ? null : <FormError message={translateErrorKey(queryError, t)} />}
        <SignInMethods
          ssoMethods={ssoMethods}
          ssoOptions={kioskBox}
          passkey={
            passkeyOffered ? <PasskeySignInButton signIn={passkeySignIn} onStart={preloadUserPages} /> : undefined
          }
        >
          {localForm}
        </SignInMethods>
        <Center>
          <Anchor component={Link} to="/admin" size="sm">
            {t('login.adminLink')}
          </Anchor>
        </Center>
      </Stack>
    </AuthLayout>
  );
}
