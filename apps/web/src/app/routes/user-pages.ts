import { lazy } from 'react';

/**
 * The signed-in user pages, loaded on demand: keeping them out of the first download keeps the login
 * light. The login starts fetching them while the credentials are being checked (preloadUserPages),
 * so they are usually there by the time the sign-in answers.
 */
const loadHome = () => import('../../pages/user/Home/Page');
const loadDashboard = () => import('../../pages/user/NewUserDashboard/Page');

export const HomePage = lazy(loadHome);
export const NewUserDashboardPage = lazy(loadDashboard);

/** Starts downloading the user pages. A failed download is simply tried again when the route renders. */
export function preloadUserPages(): void {
  void Promise.all([loadHome(), loadDashboard()]).catch(() => undefined);
}
