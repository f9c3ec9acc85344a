import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { capture, cleanEnv, freePort, REPO_ROOT, type RunningProcess } from '@postern/test-support';
import type { PosternConfig } from '../../../apps/server/src/config/config.js';

/** A built Postern server on its own port and fresh data directory (and store). */
export interface PosternServer {
  url: string;
  /** The password printed for postern-admin on first start. */
  adminPassword: string;
  /** Which store it runs on. */
  store: 'sqlite' | 'postgres';
  /** Where that store is: the SQLite file, or a PostgreSQL URL whose search path is its schema. */
  storeLocation: StoreLocation;
  process: RunningProcess;
  stop(): Promise<void>;
}

/**
 * sqlite: the embedded store, as `npm start` gives a newcomer. postgres: a fresh schema of the
 * server named by POSTERN_TEST_DATABASE_URL (CI sets it), falling back to SQLite when there is none.
 */
export type StoreChoice = 'sqlite' | 'postgres';

/** A store's location as the server's configuration names it. */
export type StoreLocation = PosternConfig['store'];

/** The embedded store a server keeps in `dataDir` when DATABASE_URL is unset. */
export function sqliteStoreIn(dataDir: string): StoreLocation {
  return { kind: 'sqlite', file: path.join(dataDir, 'postern.db') };
}

const PASSWORD_LINE = /Its password is shown only this once:\n\n\s+(\S+)\n/;

/**
 * Starts `node apps/server/dist/main.js` exactly as `npm start` runs it, on 127.0.0.1. `commandPrefix`
 * runs it through another command first (`ip netns exec <ns>`: then the URL is only reachable inside
 * that namespace, unless the caller relays it).
 */
export async function startPosternServer(
  settings: Record<string, string> = {},
  storeChoice: StoreChoice = 'sqlite',
  commandPrefix: readonly string[] = [],
): Promise<PosternServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'postern-system-'));
  const postgres = storeChoice === 'postgres' ? await createPostgresSchema() : null;
  const { process: running, url } = await spawnPosternServer(
    dataDir,
    { ...(postgres === null ? {} : { DATABASE_URL: postgres.url }), ...settings },
    commandPrefix,
  );
  const stop = async () => {
    await running.stop();
    await postgres?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await running.waitForOutput(PASSWORD_LINE, 30_000);
  } catch (error) {
    await stop();
    throw error;
  }
  const adminPassword = PASSWORD_LINE.exec(running.stdout())?.[1] ?? '';
  return {
    url,
    adminPassword,
    store: postgres === null ? 'sqlite' : 'postgres',
    storeLocation:
      postgres === null ? sqliteStoreIn(settings.POSTERN_DATA_DIR ?? dataDir) : { kind: 'postgres', url: postgres.url },
    process: running,
    stop,
  };
}

/**
 * Spawns `main.js serve` on `dataDir` with the tests' defaults (127.0.0.1, a free port, warnings
 * only, no discovery ports) overridden by `settings`. The caller owns the directory, so a test can
 * start a server on the same one again.
 */
export async function spawnPosternServer(
  dataDir: string,
  settings: Record<string, string> = {},
  commandPrefix: readonly string[] = [],
): Promise<{ process: RunningProcess; url: string }> {
  const port = await freePort();
  const [command = process.execPath, ...prefixArgs] = [...commandPrefix, process.execPath];
  const serverArgs = [...prefixArgs, path.join(REPO_ROOT, 'apps/server/dist/main.js'), 'serve'];
  const child = spawn(command, serverArgs, {
    cwd: REPO_ROOT,
    env: cleanEnv(['POSTERN_', 'DATABASE_URL'], {
      POSTERN_DATA_DIR: dataDir,
      POSTERN_PORT: String(port),
      POSTERN_HOST: '127.0.0.1',
      POSTERN_LOG_LEVEL: 'warn',
      POSTERN_IP_DISCOVERY_PORTS: 'off',
      POSTERN_METRICS_LISTEN: 'off',
      ...settings,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { process: capture(child), url: `http://127.0.0.1:${port}` };
}

/**
 * A new schema on the test PostgreSQL and a DATABASE_URL whose search path is that schema; null when
 * POSTERN_TEST_DATABASE_URL is unset.
 */
export async function createPostgresSchema(): Promise<{ url: string; drop(): Promise<void> } | null> {
  const base = process.env.POSTERN_TEST_DATABASE_URL;
  if (base === undefined || base === '') return null;
  const schema = `postern_system_${randomBytes(6).toString('hex')}`;
  const run = async (statement: string) => {
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await run(`create schema ${schema}`);
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return { url: url.toString(), drop: () => run(`drop schema ${schema} cascade`) };
}
