import { signInAdmin } from '../fixtures';
import { renderApp } from '../render-app';
import { installTypedFakeApi, type FakeRoute, type TypedHandler } from '../typed-fake-api';

/**
 * What every admin screen's opener does: installs the typed fake API with `routes` over its defaults,
 * signs the admin Grace in, and renders the whole app at `path`. The opener then adds the screen's
 * own reads and waits for what it shows.
 */
export function openAdminScreen(path: string, routes: Partial<Record<FakeRoute, TypedHandler>>) {
  const api = installTypedFakeApi(routes);
  signInAdmin();
  return { api, ...renderApp(path) };
}
