import type { ComponentType } from 'react';
import type { Area } from '../../lib/area';
import type { RouteId } from '../../lib/route-paths';

/** What every routed page receives. */
export interface RoutePageProps {
  route: AppRoute;
}

/** One entry of the route table (spec §2): a path, its screen, and what it needs. */
export interface AppRoute {
  id: RouteId;
  path: string;
  area: Area;
  /** Only for a signed-in user; others go to the login (/). */
  requiresUserLogin: boolean;
  /** Only for a signed-in admin; others go to the admin login (/admin). Shown inside the admin shell. */
  requiresAdminLogin: boolean;
  /** A sign-in screen: someone already signed in to its area is sent on to their home. */
  isLogin: boolean;
  Page: ComponentType<RoutePageProps>;
}

/** The translation key of a route's page name. */
export function routeTitleKey(id: RouteId): `route.${RouteId}` {
  return `route.${id}`;
}
