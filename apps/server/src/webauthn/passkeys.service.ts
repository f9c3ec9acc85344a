import { AuditActions, ErrorCodes, type Passkey } from '@postern/protocol';
import type { AppContext, RequestMeta } from '../app-context.js';
import { BadRequestError, ConflictError, NotFoundError } from '../errors.js';
import { recordAudit } from '../audit/audit.js';
import { findUserById } from '../users/users.repo.js';
import { findAdminById, type Admin } from '../admins/admins.repo.js';
import { requiresTotp } from '../auth/session-info.js';
import { assertPasskeysAllowed, assertRecentSignIn, who } from './passkey-checks.js';
import {
  countPasskeys,
  deletePasskey,
  deletePasskeysOf,
  findPasskeyOf,
  passkeyRecord,
  passkeysOf,
  renamePasskey,
  type PasskeyRealm,
  type StoredPasskey,
} from './passkeys.repo.js';
import type { PasskeyCaller } from './registration.service.js';

/** GET …/webauthn/credentials: the caller's own passkeys. */
export async function listOwnPasskeys(ctx: AppContext, caller: PasskeyCaller): Promise<Passkey[]> {
  assertPasskeysAllowed(caller.account);
  return (await passkeysOf(ctx.db, caller.realm, caller.account.id)).map(passkeyRecord);
}

async function ownPasskey(ctx: AppContext, caller: PasskeyCaller, id: string): Promise<StoredPasskey> {
  assertPasskeysAllowed(caller.account);
  const passkey = await findPasskeyOf(ctx.db, caller.realm, caller.account.id, id);
  if (passkey === null) throw new NotFoundError({ code: ErrorCodes.passkeyNotFound });
  return passkey;
}

/** PUT …/webauthn/credentials/{id}: a new name changes nothing a sign-in checks, so no recent sign-in is needed. */
export async function renameOwnPasskey(
  ctx: AppContext,
  caller: PasskeyCaller,
  id: string,
  name: string,
  meta: RequestMeta,
): Promise<Passkey> {
  const passkey = await ownPasskey(ctx, caller, id);
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    await renamePasskey(trx, passkey.id, name);
    await recordAudit(trx, now, AuditActions.PasskeyRenamed, {
      ...who(caller.realm, caller.account.userName),
      IpAddress: meta.ipAddress,
      Description: `${passkey.name} → ${name}`,
    });
  });
  return passkeyRecord({ ...passkey, name });
}

/**
 * DELETE …/webauthn/credentials/{id}: within the recent sign-in window. An account that must sign in
 * with a second factor keeps one: its last passkey goes only while it has a verified authenticator
 * app (409 err.lastSecondFactor otherwise).
 */
export async function removeOwnPasskey(
  ctx: AppContext,
  caller: PasskeyCaller,
  id: string,
  meta: RequestMeta,
): Promise<void> {
  assertRecentSignIn(ctx, caller.session);
  const passkey = await ownPasskey(ctx, caller, id);
  const { account, realm } = caller;
  if (requiresTotp(account) && !account.totpVerified && (await countPasskeys(ctx.db, realm, account.id)) <= 1) {
    throw new ConflictError({ code: ErrorCodes.lastSecondFactor });
  }
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    await deletePasskey(trx, passkey.id);
    await recordAudit(trx, now, AuditActions.PasskeyRemoved, {
      ...who(realm, account.userName),
      IpAddress: meta.ipAddress,
      Description: passkey.name,
    });
  });
}

/** The account an administrator manages the passkeys of: 404 when there is none. */
async function managedAccount(ctx: AppContext, realm: PasskeyRealm, id: string): Promise<{ userName: string }> {
  const account = realm === 'user' ? await findUserById(ctx.db, id) : await findAdminById(ctx.db, id);
  if (account === null) throw new NotFoundError({ extra: realm });
  return account;
}

/** GET /api/admin/users/{id}/passkeys and /api/admin/admins/{id}/passkeys */
export async function listPasskeysOf(ctx: AppContext, realm: PasskeyRealm, id: string): Promise<Passkey[]> {
  await managedAccount(ctx, realm, id);
  return (await passkeysOf(ctx.db, realm, id)).map(passkeyRecord);
}

/**
 * DELETE /api/admin/users/{id}/passkeys and /api/admin/admins/{id}/passkeys: every passkey of the
 * account is forgotten (a lost or cloned authenticator). An administrator's own go one by one, in
 * their own session, as their TOTP reset does.
 */
export async function resetPasskeys(ctx: AppContext, actor: Admin, realm: PasskeyRealm, id: string): Promise<void> {
  if (realm === 'admin' && actor.id === id) throw new BadRequestError({ code: ErrorCodes.cannotResetOwn2fa });
  const account = await managedAccount(ctx, realm, id);
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    const removed = await deletePasskeysOf(trx, realm, id);
    // The account's open ceremonies go too: none may finish after the reset.
    await trx.deleteFrom('webauthnCeremonies').where('realm', '=', realm).where('accountId', '=', id).execute();
    if (realm === 'user') {
      await recordAudit(trx, now, AuditActions.UserPasskeysReset, {
        AdminName: actor.userName,
        UserName: account.userName,
        Description: `${removed} passkey(s)`,
      });
    } else {
      await recordAudit(trx, now, AuditActions.AdminPasskeysReset, {
        AdminName: actor.userName,
        Description: account.userName,
      });
    }
  });
}
