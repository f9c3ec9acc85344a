import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { notifications } from '@mantine/notifications';
import { afterEach, vi } from 'vitest';
import i18n from '../i18n/i18n';

// A whole-app render loads the lazy admin pages first; on a busy two-core CI machine the first
// lookup can take seconds. Waiting longer only slows a failing test, never a passing one.
configure({ asyncUtilTimeout: 5_000 });

// jsdom lacks these browser APIs; Mantine needs them (colour scheme, ScrollArea, Combobox).
Object.defineProperty(window, 'matchMedia', {
  writable: true,
  value: (query: string): MediaQueryList =>
    ({
      matches: false,
      media: query,
      onchange: null,
      addListener: () => undefined,
      removeListener: () => undefined,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      dispatchEvent: () => false,
    }) as MediaQueryList,
});

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
  if (i18n.language !== 'en') await i18n.changeLanguage('en');
});
