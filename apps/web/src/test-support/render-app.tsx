import { render } from '@testing-library/react';
import { App } from '../app/App';
import { createTestQueryClient, createTestUser } from './test-clients';

/**
 * For the first find after rendering the app: the admin shell and pages are lazy chunks, which a
 * cold test worker takes longer than Testing Library's one-second default to load.
 */
export const APP_LOAD = { timeout: 5_000 };

/** The path, query included, the app is showing now. */
export function currentPath(): string {
  return `${window.location.pathname}${window.location.search}`;
}

/**
 * Renders the whole app, with its real router, at `path`. Install the fake API first: the app
 * starts calling it at once.
 */
export function renderApp(path: string) {
  window.history.replaceState(null, '', path);
  const queryClient = createTestQueryClient();
  const user = createTestUser();
  const result = render(<App queryClient={queryClient} />);
  return { ...result, user, queryClient };
}
