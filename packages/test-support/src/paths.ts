import path from 'node:path';

/** The monorepo root: the commands the tests start run from here. */
export const REPO_ROOT = path.resolve(import.meta.dirname, '../../..');
