import { useTranslation } from 'react-i18next';
import { AuthLayout } from '../../../components/AuthLayout';
import { TwoFactorOnboarding } from '../../../features/two-factor/components/TwoFactorOnboarding';

/** /otp/onboard: a user sets up an authenticator, then signs in again with it. Loaded on demand. */
export default function TwoFactorOnboardPage() {
  const { t } = useTranslation();
  return (
    <AuthLayout heading={t('route.twoFactorOnboard')} intro={t('twoFactor.onboardIntro')}>
      <TwoFactorOnboarding realm="user" />
    </AuthLayout>
  );
}
