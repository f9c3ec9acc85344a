import path from 'node:path';

/** The monorepo root. Commands run from here so `--import tsx` resolves the root's tsx. */
export const REPO_ROOT = path.resolve(import.meta.dirname, '../../..');
