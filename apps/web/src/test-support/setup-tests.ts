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

// A menu opens with its first item focused (the theme turns off Mantine's role-less focus
// placeholder, which axe refuses inside a menu). In jsdom, Mantine's focus trap runs while the
// dropdown's transition still has it at display:none, finds nothing to focus and warns, with the whole
// DOM node: thousands of lines per run. Chromium focuses the first item (checked by keyboard), so
// this one warning is jsdom's and is dropped; every other warning still shows. The setup file runs
// once per test file in a shared module graph, hence the guard against wrapping twice.
const FOCUS_TRAP_WARNING = '[@mantine/hooks/use-focus-trap] Failed to find focusable element';
const warnings = globalThis as { posternFocusTrapWarningDropped?: boolean };
if (warnings.posternFocusTrapWarningDropped !== true) {
  warnings.posternFocusTrapWarningDropped = true;
  // eslint-disable-next-line no-console -- the filter wraps the console itself
  const warn = console.warn.bind(console);
  // eslint-disable-next-line no-console -- as above
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].startsWith(FOCUS_TRAP_WARNING)) return;
    warn(...args);
  };
}

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
