import { vi } from 'vitest';

/**
 * Replaces the browser clipboard with a spy and returns its `writeText`. Call it after rendering:
 * user-event installs a clipboard of its own when it sets up.
 */
export function stubClipboard() {
  const writeText = vi.fn(() => Promise.resolve());
  Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
  return writeText;
}
