import { z } from 'zod';
import { dataEnvelope } from './envelope.js';
import { Id } from './common.js';

/** One running session of a user (GET /api/admin/users/{id}/sessions). */
export const UserSessionRecord = z.object({
  ID: Id,
  Created: z.string(),
  Ends: z.string(),
  IPAddress: z.string(),
  KioskMode: z.boolean(),
});
export type UserSessionRecord = z.infer<typeof UserSessionRecord>;
export const UserSessionListResponse = dataEnvelope(z.array(UserSessionRecord));

/** One running session of an admin (GET /api/admin/admins/{id}/sessions). */
export const AdminSessionRecord = z.object({
  ID: Id,
  Created: z.string(),
  Ends: z.string(),
  IPAddress: z.string(),
  /** The session asking is this one. */
  Current: z.boolean(),
});
export type AdminSessionRecord = z.infer<typeof AdminSessionRecord>;
export const AdminSessionListResponse = dataEnvelope(z.array(AdminSessionRecord));

/** DELETE /api/admin/sessions and /api/admin/adminsessions: how many sessions ended. */
export const SessionsEndedResponse = dataEnvelope(z.object({ Ended: z.number().int() }));
