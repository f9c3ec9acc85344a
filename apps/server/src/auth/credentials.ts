import { ErrorCodes } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { ServiceUnavailableError } from '../errors.js';
import { readSettings } from '../settings/settings.js';
import { LdapUnavailableError, ldapBind } from '../ldap/ldap-bind.js';
import { verifyAgainstDecoy, verifyPassword } from '../lib/passwords.js';

/** What a sign-in needs to know about an account to check its password. */
export interface CredentialHolder {
  authType: string;
  passwordHash: string | null;
  ldapDn: string | null;
}

/**
 * Checks a password for a user or admin: local accounts against their argon2id hash, LDAP accounts
 * by binding as their DN. A missing account, or one that signs in elsewhere (SAML, API key), costs
 * the same hashing work and fails, so timing does not reveal which names exist.
 */
export async function passwordMatches(
  ctx: AppContext,
  account: CredentialHolder | null,
  password: string,
): Promise<boolean> {
  if (account?.authType === 'local' && account.passwordHash !== null) {
    return verifyPassword(account.passwordHash, password);
  }
  if (account?.authType === 'LDAP' && account.ldapDn !== null && account.ldapDn !== '') {
    return ldapPasswordMatches(ctx, account.ldapDn, password);
  }
  return verifyAgainstDecoy(password);
}

async function ldapPasswordMatches(ctx: AppContext, dn: string, password: string): Promise<boolean> {
  const settings = await readSettings(ctx.db);
  if (settings.LDAPURL === '') {
    ctx.logger.warn('an LDAP account tried to sign in, but no LDAP server is configured');
    return verifyAgainstDecoy(password);
  }
  try {
    const result = await ldapBind(
      { url: settings.LDAPURL, startTls: settings.LDAPStartTLS, skipVerifyTls: settings.LDAPSkipVerifyTLS },
      dn,
      password,
    );
    return result === 'ok';
  } catch (error) {
    if (error instanceof LdapUnavailableError) {
      ctx.logger.error({ err: error }, 'the LDAP server could not be reached');
      // The directory being down says nothing about the password: not counted as a failure.
      throw new ServiceUnavailableError({ code: ErrorCodes.ldapUnavailable });
    }
    throw error;
  }
}
