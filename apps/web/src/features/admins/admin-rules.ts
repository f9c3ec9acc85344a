import {
  ErrorCodes,
  type AdminAuthType,
  type AdminCreateBody,
  type AdminRecord,
  type AdminUpdateBody,
} from '@postern/protocol';

/** The admin dialog's values: the wire fields, with the LDAP DN always present so the input stays controlled. */
export interface AdminFormValues {
  Name: string;
  UserName: string;
  AuthType: AdminAuthType;
  PlainPassword: string;
  ConfirmPassword: string;
  ThirdPartyAuth: { DN: string };
  TOTPEnabled: boolean;
  LoginEnabled: boolean;
}

/** The dialog's starting values: the admin's own, or the spec's defaults (2FA and sign-in on). */
export function adminFormValues(admin?: AdminRecord): AdminFormValues {
  return {
    Name: admin?.Name ?? '',
    UserName: admin?.UserName ?? '',
    AuthType: admin?.AuthType ?? 'local',
    // Never prefilled: an empty password on edit keeps the current one.
    PlainPassword: '',
    ConfirmPassword: '',
    ThirdPartyAuth: { DN: admin?.ThirdPartyAuth?.DN ?? '' },
    TOTPEnabled: admin?.TOTPEnabled ?? true,
    LoginEnabled: admin?.LoginEnabled ?? true,
  };
}

/** Whether the kind of account signs in with a password Postern holds. */
export const hasPassword = (authType: AdminAuthType) => authType === 'local';
/** Whether a second factor applies: SAML admins get theirs from the IdP (spec: OTP only for non-SAML admins). */
export const hasTotp = (authType: AdminAuthType) => authType !== 'SAML';

/** POST /api/admin/admins: only the fields the chosen kind of account uses. */
export function toAdminCreateBody(values: AdminFormValues): AdminCreateBody {
  const password = hasPassword(values.AuthType) ? values.PlainPassword : '';
  return {
    Name: values.Name.trim(),
    UserName: values.UserName.trim(),
    AuthType: values.AuthType,
    TOTPEnabled: hasTotp(values.AuthType) && values.TOTPEnabled,
    LoginEnabled: values.LoginEnabled,
    ...(password === '' ? {} : { PlainPassword: password, ConfirmPassword: values.ConfirmPassword }),
    ThirdPartyAuth: values.AuthType === 'LDAP' ? { DN: values.ThirdPartyAuth.DN.trim() } : null,
  };
}

/** PUT /api/admin/admins/{id}: the same fields plus ID; no password keeps the current one. */
export function toAdminUpdateBody(id: string, values: AdminFormValues): AdminUpdateBody {
  return { ...toAdminCreateBody(values), ID: id };
}

/**
 * Whether a row is the signed-in admin's own account. The session knows the sign-in name, which is
 * unique and cannot change, so it identifies the account as surely as the ID would.
 */
export function isOwnAccount(admin: AdminRecord, signedInUserName: string | undefined): boolean {
  return signedInUserName !== undefined && admin.UserName === signedInUserName;
}

/** Why an action is unavailable (a translation key), or null when it is available. */
export type Unavailable = string | null;

/** Which row actions an admin offers, and why not (spec: no reset of your own 2FA, no deleting yourself). */
export function adminRowActions(admin: AdminRecord, own: boolean): { resetTotp: Unavailable; remove: Unavailable } {
  return {
    resetTotp: own ? ErrorCodes.cannotResetOwn2fa : admin.TOTPEnabled ? null : 'adminsScreen.actions.totpOff',
    remove: own ? ErrorCodes.cannotDeleteSelf : null,
  };
}

/** Fields of the dialog that are fixed, and why (a translation key). */
export interface AdminFieldLocks {
  /** The sign-in name and the kind of account are fixed once created (the server refuses changes). */
  identity: boolean;
  /** You cannot turn off your own second factor. */
  TOTPEnabled: Unavailable;
  /** You cannot turn off your own sign-in (you could lock everyone out). */
  LoginEnabled: Unavailable;
}

/** The locks of the create (no admin) or edit dialog. */
export function adminFieldLocks(admin: AdminRecord | undefined, own: boolean): AdminFieldLocks {
  if (admin === undefined) return { identity: false, TOTPEnabled: null, LoginEnabled: null };
  return {
    identity: true,
    TOTPEnabled: own && admin.TOTPEnabled ? ErrorCodes.cannotDisableOwn2fa : null,
    LoginEnabled: own ? ErrorCodes.cannotDeleteSelf : null,
  };
}
