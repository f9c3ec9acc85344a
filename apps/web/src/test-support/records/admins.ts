import type { AdminRecord } from '@postern/protocol';
import { hoursAgo } from '../time';

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
