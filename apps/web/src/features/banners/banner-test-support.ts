import type { AdminStatus } from '@postern/protocol';
import { adminStatus } from '../../test-support/fixtures';

/**
 * Fixtures for the banner tests: an admin status that triggers no banner at all (licensed, within the
 * limit, no update), to which each test adds exactly the condition it is about.
 */

const DAY_MS = 86_400_000;

/** A licence for 100 users plus 50 grace seats (50%), expiring in a year. */
export function licensing(overrides: Partial<AdminStatus['Licensing']> = {}): AdminStatus['Licensing'] {
  return {
    Licensed: true,
    Expires: new Date(Date.now() + 365 * DAY_MS).toISOString(),
    UserLimit: 100,
    UserLimitOverage: 50,
    UserLimitOveragePercentage: 50,
    SessionLimit: 5,
    ...overrides,
  };
}

/** GET /api/admin/status with no banner condition; `overrides` adds one. */
export function quietStatus(overrides: Partial<AdminStatus> = {}): AdminStatus {
  return adminStatus({
    ServerVersion: '1.9.0',
    MinimumRequiredAgentVersion: '1.6.0',
    UserCount: 10,
    Licensing: licensing(),
    ...overrides,
  });
}

/** The days from now, as the ISO instant the server would send. */
export function daysFromNow(days: number, now = Date.now()): string {
  return new Date(now + days * DAY_MS).toISOString();
}

/**
 * For the first find after rendering the app: the admin shell and pages are lazy chunks, which a
 * cold test worker takes longer than Testing Library's one-second default to load.
 */
export const APP_LOAD = { timeout: 5_000 };
