import { useTranslation } from 'react-i18next';
import { AuthLayout } from '../../../components/AuthLayout';
import { TwoFactorVerification } from '../../../features/two-factor/components/TwoFactorVerification';

/** /admin/otp/verify: the code that finishes an admin's sign-in. */
export default function AdminTwoFactorPage() {
  const { t } = useTranslation();
  return (
    <AuthLayout heading={t('route.adminTwoFactor')} intro={t('twoFactor.verifyIntro')}>
      <TwoFactorVerification realm="admin" />
    </AuthLayout>
  );
}
