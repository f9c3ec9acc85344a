import type { enAdmin } from './en-admin';
import { auth } from './en/auth';
import { common } from './en/common';
import { err } from './en/errors';
import { passkeys } from './en/passkeys';
import { portal } from './en/portal';

/**
 * English, the reference language: every other language mirrors these keys. The texts live in one
 * file per area under `en/`; add a key to the area's file (and the same key under `de/`).
 *
 * These are the texts of the user portal and the login pages, bundled with the app's entry. The admin
 * console's texts are in `en-admin.ts`, a namespace of their own that is downloaded when the console
 * opens (see `i18n.ts`).
 */
export const en = {
  ...common,
  ...auth,
  ...portal,
  ...passkeys,
  err,
};

/** The shape every translation of the app has: the bundled texts and the admin console's. */
export type Translation = typeof en & typeof enAdmin;
