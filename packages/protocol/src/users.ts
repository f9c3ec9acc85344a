import { z } from 'zod';
import { dataEnvelope } from './envelope.js';
import { UserAuthType } from './auth.js';
import { ErrorCodes } from './errors.js';
import { Id, IsoDateTime, NewPassword, RequiredName } from './common.js';
import { USER_SESSION_MINUTES_DEFAULT, USER_SESSION_MINUTES_MAX, USER_SESSION_MINUTES_MIN } from './limits.js';

/** The identity an external directory knows the account by. */
export const ThirdPartyAuth = z.object({ DN: z.string().trim().max(1024) });
export type ThirdPartyAuth = z.infer<typeof ThirdPartyAuth>;

/** A user as the admin API shows it. */
export const UserRecord = z.object({
  ID: Id,
  Name: z.string(),
  UserName: z.string(),
  Company: z.string(),
  /** Session length in minutes. */
  Duration: z.number().int(),
  /** Concurrent sessions; null means the licence's limit. */
  SessionLimit: z.number().int().nullable(),
  AuthType: UserAuthType,
  TOTPEnabled: z.boolean(),
  /** The user has enrolled an authenticator. */
  TOTPVerified: z.boolean(),
  /** A disabled user cannot sign in; their sessions have ended. */
  Disabled: z.boolean(),
  ValidUntil: z.string().nullable(),
  ThirdPartyAuth: ThirdPartyAuth.nullable(),
  AclIds: z.array(Id),
  /** Within the licence's user limit. */
  Licensed: z.boolean(),
  LastLogin: z.string().nullable(),
  CreatedAt: z.string(),
  ActiveSession: z.boolean(),
});
export type UserRecord = z.infer<typeof UserRecord>;
export const UserResponse = dataEnvelope(UserRecord);
export const UserListResponse = dataEnvelope(z.array(UserRecord));

/** GET /api/admin/users/{id}/acls: the knocs a user may use, by id and description. */
export const UserAcl = z.object({ ID: z.string(), Description: z.string() });
export type UserAcl = z.infer<typeof UserAcl>;
export const UserAclListResponse = dataEnvelope(z.array(UserAcl));

/** For AuthType apikey: a key created with the user, scoped user.auth:{the new user's ID}. */
export const UserApiKeyRequest = z.object({
  Name: RequiredName,
  /** Omitted: the key never expires. */
  ExpiredAfter: IsoDateTime.optional(),
});

const userFields = {
  Name: RequiredName,
  Company: z.string().trim().max(200).default(''),
  /** Session length in minutes, 1 to one year (the bound keeps every date derived from it valid). */
  Duration: z
    .number()
    .int(ErrorCodes.userDurationRange)
    .min(USER_SESSION_MINUTES_MIN, ErrorCodes.userDurationRange)
    .max(USER_SESSION_MINUTES_MAX, ErrorCodes.userDurationRange)
    .default(USER_SESSION_MINUTES_DEFAULT),
  /** At most the licence's (checked by the server) and what the store's integer column holds. */
  SessionLimit: z.number().int().min(1).max(2_147_483_647).nullable().default(null),
  AuthType: UserAuthType,
  TOTPEnabled: z.boolean().default(false),
  Disabled: z.boolean().default(false),
  ValidUntil: IsoDateTime.nullable().default(null),
  ThirdPartyAuth: ThirdPartyAuth.nullable().default(null),
};

/**
 * Rules that span fields, for users and admins alike: a local account needs a password when created,
 * a password needs its confirmation, an LDAP account needs its DN.
 */
export function checkAccountCredentials(
  value: {
    AuthType: string;
    PlainPassword?: string | undefined;
    ConfirmPassword?: string | undefined;
    ThirdPartyAuth: ThirdPartyAuth | null;
  },
  context: z.RefinementCtx,
  passwordRequired: boolean,
) {
  const password = value.PlainPassword ?? '';
  if (value.AuthType === 'local' && passwordRequired && password === '') {
    context.addIssue({ code: 'custom', path: ['PlainPassword'], message: ErrorCodes.passwordLength });
  }
  if (password !== '' && (value.ConfirmPassword ?? '') !== password) {
    context.addIssue({ code: 'custom', path: ['ConfirmPassword'], message: ErrorCodes.passwordsDontMatch });
  }
  if (value.AuthType === 'LDAP' && (value.ThirdPartyAuth?.DN ?? '') === '') {
    context.addIssue({ code: 'custom', path: ['ThirdPartyAuth', 'DN'], message: ErrorCodes.ldapDnRequired });
  }
}

/** POST /api/admin/users */
export const UserCreateBody = z
  .object({
    ...userFields,
    UserName: RequiredName,
    PlainPassword: z.union([z.literal(''), NewPassword]).optional(),
    ConfirmPassword: z.string().optional(),
    ApiKey: UserApiKeyRequest.optional(),
  })
  .superRefine((value, context) => checkAccountCredentials(value, context, true));
export type UserCreateBody = z.infer<typeof UserCreateBody>;

/** The answer to a create: the user, and the plaintext of a key created with it (shown once). */
export const UserCreateResponse = dataEnvelope(z.object({ User: UserRecord, PlaintextKey: z.string().nullable() }));

/** PUT /api/admin/users/{id}: an empty password keeps the current one. */
export const UserUpdateBody = z
  .object({
    ...userFields,
    ID: Id,
    UserName: RequiredName,
    PlainPassword: z.union([z.literal(''), NewPassword]).optional(),
    ConfirmPassword: z.string().optional(),
    AclIds: z.array(Id).default([]),
  })
  .superRefine((value, context) => checkAccountCredentials(value, context, false));
export type UserUpdateBody = z.infer<typeof UserUpdateBody>;
