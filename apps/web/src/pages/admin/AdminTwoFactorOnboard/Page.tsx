import { useTranslation } from 'react-i18next';
import { AuthLayout } from '../../../components/AuthLayout';
import { TwoFactorOnboarding } from '../../../features/two-factor/components/TwoFactorOnboarding';
import { useAdminSession } from '../../../lib/session/session-store';

/**
 * /admin/otp/onboard: an admin sets up an authenticator, or postpones it ('Do this next time') when
 * the pending sign-in says enrolment is deferable.
 */
export default function AdminTwoFactorOnboardPage() {
  const { t } = useTranslation();
  const deferable = useAdminSession()?.TotpEnrolmentDeferable ?? false;
  return (
    <AuthLayout heading={t('route.adminTwoFactorOnboard')} intro={t('twoFactor.onboardIntro')}>
      <TwoFactorOnboarding realm="admin" deferable={deferable} />
    </AuthLayout>
  );
}
