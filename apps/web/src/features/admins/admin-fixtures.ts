import type { AdminRecord } from '@postern/protocol';

/** The ISO instant `hours` ago. */
export const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();

/** Test data only: one admin as GET /api/admin/admins lists it. */
export function adminRecord(overrides: Partial<AdminRecord> = {}): AdminRecord {
  return {
    ID: 'admin-grace',
    Name: 'Grace Hopper',
    UserName: 'grace',
    AuthType: 'local',
    TOTPEnabled: true,
    TOTPVerified: true,
    LoginEnabled: true,
    ThirdPartyAuth: null,
    LastLogin: hoursAgo(2),
    CreatedAt: hoursAgo(24 * 30),
    ...overrides,
  };
}
