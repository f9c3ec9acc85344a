import type { UserRecord } from '@postern/protocol';
import { userRecord } from '../fixtures';
import { hoursAgo } from '../time';

/** Test data only: a user as the Users screen lists one, licensed, local, signed in two hours ago. */
export function listedUser(overrides: Partial<UserRecord> = {}): UserRecord {
  return userRecord({
    Company: 'Analytical Engines',
    SessionLimit: 3,
    AclIds: ['acl-1'],
    LastLogin: hoursAgo(2),
    CreatedAt: hoursAgo(24 * 30),
    ActiveSession: true,
    ...overrides,
  });
}
