import { z } from 'zod';
import { dataEnvelope } from './envelope.js';
import { AdminAuthType } from './auth.js';
import { Id, NewPassword, RequiredName } from './common.js';
import { checkAccountCredentials, ThirdPartyAuth } from './users.js';

/** An administrator as the admin API shows it. */
export const AdminRecord = z.object({
  ID: Id,
  Name: z.string(),
  UserName: z.string(),
  AuthType: AdminAuthType,
  TOTPEnabled: z.boolean(),
  TOTPVerified: z.boolean(),
  LoginEnabled: z.boolean(),
  ThirdPartyAuth: ThirdPartyAuth.nullable(),
  LastLogin: z.string().nullable(),
  CreatedAt: z.string(),
});
export type AdminRecord = z.infer<typeof AdminRecord>;
export const AdminResponse = dataEnvelope(AdminRecord);
export const AdminListResponse = dataEnvelope(z.array(AdminRecord));

const adminFields = {
  Name: RequiredName,
  UserName: RequiredName,
  AuthType: AdminAuthType,
  /** Second factor on (the default). SAML admins sign in at their IdP, which owns the second factor. */
  TOTPEnabled: z.boolean().default(true),
  LoginEnabled: z.boolean().default(true),
  PlainPassword: z.union([z.literal(''), NewPassword]).optional(),
  ConfirmPassword: z.string().optional(),
  ThirdPartyAuth: ThirdPartyAuth.nullable().default(null),
};

/** POST /api/admin/admins */
export const AdminCreateBody = z
  .object(adminFields)
  .superRefine((value, context) => checkAccountCredentials(value, context, true));
export type AdminCreateBody = z.infer<typeof AdminCreateBody>;

/** PUT /api/admin/admins/{id}: an empty password keeps the current one. */
export const AdminUpdateBody = z
  .object({ ...adminFields, ID: Id })
  .superRefine((value, context) => checkAccountCredentials(value, context, false));
export type AdminUpdateBody = z.infer<typeof AdminUpdateBody>;
