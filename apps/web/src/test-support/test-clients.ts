import userEvent from '@testing-library/user-event';
import { createQueryClient } from '@/app/query-client';

/**
 * The app's QueryClient, with the same retry rule (which failures are retried, and how often), but
 * retried at once: the default back-off waits one second, then two, so every test of a failed load
 * idled three seconds before its error showed.
 */
export function createTestQueryClient() {
  const queryClient = createQueryClient();
  const defaults = queryClient.getDefaultOptions();
  queryClient.setDefaultOptions({ ...defaults, queries: { ...defaults.queries, retryDelay: 0 } });
  return queryClient;
}

/**
 * A user-event session that types without a timer between keystrokes (`delay: null`): each key of
 * `user.type` otherwise waits for a macrotask, and a test types hundreds of them. The events sent,
 * and their order, are the same.
 */
export function createTestUser() {
  return userEvent.setup({ delay: null });
}
