import { render } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { App } from '../app/App';
import { createQueryClient } from '../app/query-client';

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
  const queryClient = createQueryClient();
  const user = userEvent.setup();
  const result = render(<App queryClient={queryClient} />);
  return { ...result, user, queryClient };
}
