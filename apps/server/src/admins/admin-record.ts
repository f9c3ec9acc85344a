import type { AdminRecord } from '@postern/protocol';
import { isoOrNull } from '../lib/rows.js';
import type { Admin } from './admins.repo.js';

/** An admin as the admin API shows it: no password hash, no TOTP secret. */
export function toAdminRecord(admin: Admin): AdminRecord {
  return {
    ID: admin.id,
    Name: admin.name,
    UserName: admin.userName,
    AuthType: admin.authType,
    TOTPEnabled: admin.totpEnabled,
    TOTPVerified: admin.totpVerified,
    LoginEnabled: admin.loginEnabled,
    ThirdPartyAuth: admin.ldapDn === null ? null : { DN: admin.ldapDn },
    LastLogin: isoOrNull(admin.lastLogin),
    CreatedAt: new Date(admin.createdAt).toISOString(),
  };
}
