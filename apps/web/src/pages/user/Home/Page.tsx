import { useTranslation } from 'react-i18next';
import { InterimUserHome } from '../../../features/user-home/InterimUserHome';

/** /home, the older home page (its ACL table and IP revalidation come in a later issue). */
export default function HomePage() {
  const { t } = useTranslation();
  return <InterimUserHome heading={t('route.home')} />;
}
