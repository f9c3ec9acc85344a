import { vi } from 'vitest';

/**
 * Makes `window.matchMedia` answer `matches` for every query (jsdom has none; Mantine needs it for
 * the colour scheme and its `useMediaQuery`). The test setup calls it with false, installing it for
 * every file; a test calls it with true to be on a phone's narrow screen (`(max-width: 36em)`), which
 * lasts for that test only: the setup's restoreAllMocks puts the setup's answer back.
 */
export function stubMatchMedia(matches: boolean): void {
  const matchMedia = (query: string): MediaQueryList =>
    ({
      matches,
      media: query,
      onchange: null,
      addListener: () => undefined,
      removeListener: () => undefined,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      dispatchEvent: () => false,
    }) as MediaQueryList;
  if (typeof window.matchMedia === 'function') vi.spyOn(window, 'matchMedia').mockImplementation(matchMedia);
  else Object.defineProperty(window, 'matchMedia', { writable: true, value: matchMedia });
}
