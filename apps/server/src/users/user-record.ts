import type { UserRecord } from '@postern/protocol';
import { isoOrNull } from '../lib/rows.js';
import type { User } from './users.repo.js';

/** A user as the admin API shows it: no password hash, no TOTP secret. */
export function toUserRecord(
  user: User,
  extras: { aclIds: readonly string[]; licensed: boolean; activeSession: boolean },
): UserRecord {
  return {
    ID: user.id,
    Name: user.name,
    UserName: user.userName,
    Company: user.company,
    Duration: user.durationMinutes,
    SessionLimit: user.sessionLimit,
    AuthType: user.authType,
    TOTPEnabled: user.totpEnabled,
    TOTPVerified: user.totpVerified,
    Disabled: user.disabled,
    ValidUntil: isoOrNull(user.validUntil),
    ThirdPartyAuth: user.ldapDn === null ? null : { DN: user.ldapDn },
    AclIds: [...extras.aclIds],
    Licensed: extras.licensed,
    LastLogin: isoOrNull(user.lastLogin),
    CreatedAt: new Date(user.createdAt).toISOString(),
    ActiveSession: extras.activeSession,
  };
}
