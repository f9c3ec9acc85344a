import type { AdminStatus } from '@postern/protocol';
import { adminStatus, licensingSummary } from '../fixtures';
import { daysFromNow } from '../time';

/**
 * Fixtures for the banner tests: an admin status that triggers no banner at all (licensed, within the
 * limit, no update), to which each test adds exactly the condition it is about.
 */

/** A licence for 100 users plus 50 grace seats (50%), expiring in a year. */
export function licensing(overrides: Partial<AdminStatus['Licensing']> = {}): AdminStatus['Licensing'] {
  return licensingSummary({
    Expires: daysFromNow(365),
    UserLimit: 100,
    UserLimitOverage: 50,
    UserLimitOveragePercentage: 50,
    SessionLimit: 5,
    ...overrides,
  });
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
