import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { notifications } from '@mantine/notifications';
import { afterEach, vi } from 'vitest';
import i18n, { ADMIN_NAMESPACE } from '../i18n/i18n';
import { enAdmin } from '../i18n/locales/en-admin';
import { deAdmin } from '../i18n/locales/de-admin';
import { stubMatchMedia } from './match-media';

// A whole-app render loads the lazy admin pages first; on a busy two-core CI machine the first
// lookup can take seconds. Waiting longer only slows a failing test, never a passing one.
configure({ asyncUtilTimeout: 5_000 });

// The admin console's texts are downloaded on demand in the browser; tests have them from the start,
// so a screen rendered on its own (without the admin shell that loads them) finds its texts.
i18n.addResourceBundle('en', ADMIN_NAMESPACE, enAdmin);
i18n.addResourceBundle('de', ADMIN_NAMESPACE, deAdmin);

// jsdom lacks these browser APIs; Mantine needs them (colour scheme, ScrollArea, Combobox).
stubMatchMedia(false);

class ResizeObserverStub {
  observe(): void {}
  unobserve(): void {}
  disconnect(): void {}
}
window.ResizeObserver = ResizeObserverStub;
Element.prototype.scrollIntoView = () => undefined;

afterEach(async () => {
  cleanup();
  // Mantine keeps notifications in a module-level store that outlives the rendered app.
  notifications.clean();
  window.sessionStorage.clear();
  window.localStorage.clear();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  // Files share one module graph (isolate: false): no fake clock may outlive its test.
  vi.useRealTimers();
  if (i18n.language !== 'en') await i18n.changeLanguage('en');
});
