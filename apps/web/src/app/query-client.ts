import { QueryClient } from '@tanstack/react-query';
import { ApiError } from '../lib/api/api-error';

/** Retries at most this many times, and only when the failure may pass (network, 5xx). */
const MAX_RETRIES = 2;

function shouldRetry(failureCount: number, error: unknown): boolean {
  // A 4xx answer (no session, bad input, not found) will not change by asking again.
  if (error instanceof ApiError && error.status >= 400 && error.status < 500) return false;
  return failureCount < MAX_RETRIES;
}

/** The app's one QueryClient (main.tsx creates it; tests make a fresh one each). */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: shouldRetry },
      mutations: { retry: false },
    },
  });
}
