import { AuditActions, USER_SESSION_MINUTES_DEFAULT } from '@postern/protocol';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { recordAudit } from '../audit/audit.js';
import { uuidv7 } from '../lib/ids.js';
import { updateUser, type User } from './users.repo.js';

/*
 * Users an identity provider vouches for (SAML, OpenID Connect): created at their first sign-in and
 * named by the provider afterwards. The sign-in modules decide when; these build and change the rows.
 */

/** The account a first sign-in creates: no password, no TOTP (the provider owns both), default duration. */
export function newFederatedUser(authType: 'SAML' | 'oidc', userName: string, name: string, now: number): User {
  return {
    id: uuidv7(now),
    name,
    userName,
    company: '',
    authType,
    passwordHash: null,
    ldapDn: null,
    durationMinutes: USER_SESSION_MINUTES_DEFAULT,
    sessionLimit: null,
    totpEnabled: false,
    totpVerified: false,
    totpSecret: null,
    totpPendingSecret: null,
    totpLastStep: null,
    disabled: false,
    validUntil: null,
    createdAt: now,
    lastLogin: null,
    language: null,
  };
}

/**
 * The provider is the source of truth for the person's name: it follows what the provider said,
 * audited with `source` (e.g. "the SAML assertion") so the log says where the new name came from.
 */
export async function renameFederatedUser(
  trx: Kysely<Database>,
  user: User,
  name: string,
  source: string,
  now: number,
): Promise<void> {
  await updateUser(
    trx,
    user.id,
    {
      name,
      company: user.company,
      durationMinutes: user.durationMinutes,
      sessionLimit: user.sessionLimit,
      totpEnabled: user.totpEnabled,
      disabled: user.disabled,
      validUntil: user.validUntil,
      ldapDn: user.ldapDn,
    },
    now,
  );
  await recordAudit(trx, now, AuditActions.UserUpdated, {
    UserName: user.userName,
    Description: `Name from ${source}`,
  });
}
