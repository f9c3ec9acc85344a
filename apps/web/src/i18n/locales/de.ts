import type { MirroredResource } from '../resource-types';
import { auth } from './de/auth';
import { common } from './de/common';
import { err } from './de/errors';
import { passkeys } from './de/passkeys';
import { portal } from './de/portal';
import type { en } from './en';

/**
 * German. Mirrors the English keys exactly (the type and a test both check it); one file per area
 * under `de/`, as for English. The admin console's texts are in `de-admin.ts`.
 */
export const de: MirroredResource<typeof en> = {
  ...common,
  ...auth,
  ...portal,
  ...passkeys,
  err,
};
