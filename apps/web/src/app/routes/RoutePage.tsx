import { Suspense, useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { FullPageLoader } from '../../components/FullPageLoader';
import { routeTitleKey, type AppRoute } from './route-types';

/** Renders a route's screen (loading it first when it is lazy) and names the browser tab after it. */
export function RoutePage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const title = t(`app.documentTitle.${route.area}`, { page: t(routeTitleKey(route.id)) });

  useEffect(() => {
    document.title = title;
  }, [title]);

  const { Page } = route;
  return (
    <Suspense fallback={<FullPageLoader />}>
      <Page route={route} />
    </Suspense>
  );
}
