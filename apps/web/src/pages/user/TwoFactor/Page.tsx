import { useTranslation } from 'react-i18next';
import { AuthLayout } from '../../../components/AuthLayout';
import { TwoFactorVerification } from '../../../features/two-factor/components/TwoFactorVerification';

/** /otp/verify: the code that finishes a user's sign-in (the login sends people here). */
export default function TwoFactorPage() {
  const { t } = useTranslation();
  return (
    <AuthLayout heading={t('route.twoFactor')} intro={t('twoFactor.verifyIntro')}>
      <TwoFactorVerification realm="user" />
    </AuthLayout>
  );
}
