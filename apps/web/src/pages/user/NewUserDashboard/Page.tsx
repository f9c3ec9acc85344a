import { useTranslation } from 'react-i18next';
import { InterimUserHome } from '../../../features/user-home/InterimUserHome';

/** /home/new, the new dashboard (cards, list view, favourites and countdown come in a later issue). */
export default function NewUserDashboardPage() {
  const { t } = useTranslation();
  return <InterimUserHome heading={t('route.dashboard')} />;
}
