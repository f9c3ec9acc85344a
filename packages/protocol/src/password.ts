import { z } from 'zod';
import { NewPassword } from './common.js';

/** PUT /api/password: local accounts only. */
export const PasswordChangeBody = z.object({
  ExistingPassword: z.string().min(1).max(1024),
  NewPassword,
});
export type PasswordChangeBody = z.infer<typeof PasswordChangeBody>;
