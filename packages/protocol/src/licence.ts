import { z } from 'zod';
import { dataEnvelope } from './envelope.js';

/** New users may exceed the licence's limit by at most this share (the grace allowance). */
export const USER_LIMIT_OVERAGE_MAX_PERCENT = 50;
/** From this share over the limit, admins are warned. */
export const USER_LIMIT_WARNING_PERCENT = 30;

/** GET /api/admin/settings/license */
export const LicenceStatus = z.object({
  Licensed: z.boolean(),
  /** The licence id, or '' when none is installed. */
  ID: z.string(),
  Licensee: z.string(),
  UserLimit: z.number().int(),
  /** Extra users allowed beyond UserLimit (the grace allowance). */
  UserLimitOverage: z.number().int(),
  UserLimitOveragePercentage: z.number(),
  SessionLimit: z.number().int(),
  /** 0 when the licence sets no limit on agents. */
  MaxMachines: z.number().int(),
  MachineCount: z.number().int(),
  /** ISO expiry, or null when no licence is installed. */
  Expires: z.string().nullable(),
  Expired: z.boolean(),
  UserCount: z.number().int(),
});
export type LicenceStatus = z.infer<typeof LicenceStatus>;
export const LicenceStatusResponse = dataEnvelope(LicenceStatus);

/** PUT /api/admin/settings/license */
export const LicenceBody = z.object({ License: z.string().trim().min(1).max(8192) });
export type LicenceBody = z.infer<typeof LicenceBody>;
