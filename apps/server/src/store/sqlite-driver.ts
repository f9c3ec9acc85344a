import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { ConfigError } from '../config/config-error.js';

const require = createRequire(import.meta.url);

/** The constructor of a better-sqlite3 database, whichever major version provides it. */
export type SqliteDatabaseConstructor = typeof BetterSqlite3;

/**
 * better-sqlite3 in the major version that is safe on this Node.js:
 *
 * - Node 22 and later: 13.x, built on Node-API with prebuilt binaries. 12.x must not run there:
 *   from Node 24.19 its Statement objects abort the process when the garbage collector frees them
 *   outside a JavaScript context (node::ObjectWrap's new cleanup-hook CHECK).
 * - Node 20: 12.x, compiled at install time. 13.x crashes on Node 20.
 *
 * Both are installed (13.x under the alias better-sqlite3-napi, 12.x as an optional dependency so a
 * machine without a compiler can still install for Node 22+); this picks the one that fits.
 */
export function loadSqliteDriver(nodeVersion: string = process.versions.node): SqliteDatabaseConstructor {
  const major = Number(nodeVersion.split('.')[0]);
  const moduleName = major >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3';
  try {
    return require(moduleName) as SqliteDatabaseConstructor;
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new ConfigError(
      'POSTERN_DATA_DIR',
      `the embedded store's SQLite driver (${moduleName}) is not available for Node ${nodeVersion} (${reason}); ` +
        'on Node 20 it is compiled at install time and needs python3, make and g++ (then run npm ci), or use Node 22 or later',
    );
  }
}
