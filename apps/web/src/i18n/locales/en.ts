import { admin } from './en/admin';
import { audit } from './en/audit';
import { auth } from './en/auth';
import { common } from './en/common';
import { err } from './en/errors';
import { portal } from './en/portal';

/**
 * English, the reference language: every other language mirrors these keys. The texts live in one
 * file per area under `en/`; add a key to the area's file (and the same key under `de/`).
 */
export const en = {
  ...common,
  ...auth,
  ...portal,
  ...admin,
  err,
  audit,
};

/** The shape every translation of the app has. */
export type Translation = typeof en;
