import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import {
  cleanEnv,
  freePort,
  REPO_ROOT,
  startSourceCommand,
  waitFor,
  type Finished,
  type RunningProcess,
} from '@postern/test-support';
import { loadSqliteDriver } from '../src/store/sqlite-driver.js';
import { commandCases, once, START_DEADLINE_MS } from './support/command-cases.js';

const MAIN = path.join(REPO_ROOT, 'apps/server/src/main.ts');
const PASSWORD_LINE = /Its password is shown only this once:\n\n\s+(\S+)\n/;

/*
 * Each case starts the real command (bundled once per file, see startSourceCommand): a process costs
 * about half a second of CPU, most of it loading the server's modules. The store with an admin that
 * two cases start from is made once and copied; each case works in a directory of its own. The cases
 * run one at a time: run at once, they were hardly faster on two cores and cost more CPU.
 */
const { scratch, track } = commandCases('postern-backup-');

/**
 * The runner's environment minus any Postern setting, plus `settings`. The IP discovery responder
 * and the metrics listener are off: their fixed default ports may be taken by another test's server.
 */
function env(settings: Record<string, string>) {
  return cleanEnv(['POSTERN_', 'DATABASE_URL'], {
    POSTERN_IP_DISCOVERY_PORTS: 'off',
    POSTERN_METRICS_LISTEN: 'off',
    ...settings,
  });
}

function postern(args: string[], settings: Record<string, string>, input?: string): Promise<Finished> {
  return startSourceCommand(MAIN, args, { env: env(settings), ...(input === undefined ? {} : { input }) }).finished;
}

/** `postern serve` with `settings`, once it says it is listening. */
async function serve(settings: Record<string, string>): Promise<RunningProcess> {
  const server = track(startSourceCommand(MAIN, ['serve'], { env: env(settings) }));
  await server.waitForOutput(/Postern is listening/, START_DEADLINE_MS);
  return server;
}

/** One line on stderr with the exit code asked for, and no stack trace. */
function expectOneLineError(result: Finished, code: number, pattern: RegExp) {
  expect(result.code, result.stderr).toBe(code);
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

async function signIn(port: number, password: string): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${port}/api/admin/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ UserName: 'postern-admin', Password: password }),
  });
  return response.status;
}

function sqliteRows(file: string, query: string): unknown[] {
  const Database = loadSqliteDriver();
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(query).all();
  } finally {
    db.close();
  }
}

const adminNames = (file: string) =>
  sqliteRows(file, 'select user_name as name from admins order by user_name').map(
    (row) => (row as { name: string }).name,
  );

/**
 * A data directory whose store holds an admin "ops" (and so secrets sealed with its key), made once
 * by `postern admin create`; each case that starts from it works on a copy (`copyOf`), never on it.
 */
const withOps = once(async () => {
  const dataDir = path.join(scratch(), 'data');
  return { dataDir, result: await postern(['admin', 'create', '-u', 'ops'], { POSTERN_DATA_DIR: dataDir }) };
});

/** A copy of the data directory `withOps` made, in a new directory of the test's. */
async function copyOfWithOps(): Promise<{ scratch: string; dataDir: string }> {
  const made = await withOps();
  expect(made.result.code, made.result.stderr).toBe(0);
  const dir = scratch();
  cpSync(made.dataDir, path.join(dir, 'data'), { recursive: true });
  return { scratch: dir, dataDir: path.join(dir, 'data') };
}

describe('postern backup and restore on the embedded SQLite store', { timeout: 120_000 }, () => {
  it('backs up while the server writes, refuses to restore under it, and restores with the data', async () => {
    const dir = scratch();
    const dataDir = path.join(dir, 'data');
    const port = await freePort();
    const server = await serve({ POSTERN_DATA_DIR: dataDir, POSTERN_PORT: String(port) });
    const password = PASSWORD_LINE.exec(server.stdout())?.[1] ?? '';

    // Sign-ins write a session row each; they go on while the backup runs.
    let writing = true;
    let signIns = 0;
    const writer = (async () => {
      while (writing) {
        expect(await signIn(port, password)).toBe(200);
        signIns += 1;
      }
    })();
    await Promise.race([
      waitFor(() => signIns >= 3, 'three sign-ins before the backup', START_DEADLINE_MS),
      // A failed sign-in ends the writer: fail with it rather than wait out the deadline.
      writer.then(() => {
        throw new Error('the sign-ins stopped before the backup');
      }),
    ]).catch((error: unknown) => {
      writing = false;
      throw error;
    });
    const target = path.join(dir, 'postern-backup.db');
    const backup = await postern(['backup', target], { POSTERN_DATA_DIR: dataDir });
    writing = false;
    await writer;

    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toContain(`Backed up the store to ${target}.`);
    expect(backup.stdout).toContain(`keep a copy of the key file ${path.join(dataDir, 'secret.key')}`);
    expect(statSync(target).mode & 0o777).toBe(0o600);
    expect(sqliteRows(target, 'pragma quick_check')).toEqual([{ quick_check: 'ok' }]);
    const backedUpSessions = sqliteRows(target, 'select count(*) as n from admin_sessions')[0] as { n: number };
    expect(backedUpSessions.n).toBeGreaterThanOrEqual(3);
    // The secret key is never in the backup's directory or file.
    expect(readFileSync(target).includes(readFileSync(path.join(dataDir, 'secret.key')))).toBe(false);

    const again = await postern(['backup', target], { POSTERN_DATA_DIR: dataDir });
    expectOneLineError(again, 1, /^postern: .*postern-backup\.db already exists; name a new file$/);

    const underServer = await postern(['restore', target], { POSTERN_DATA_DIR: dataDir });
    expectOneLineError(
      underServer,
      2,
      new RegExp(
        `^postern: the SQLite store in ${dataDir} is in use by another process \\(pid ${server.child.pid}\\); stop the server before restoring$`,
      ),
    );

    // An admin made after the backup is gone once the backup is restored over the store.
    expect((await postern(['admin', 'create', '-u', 'after-backup'], { POSTERN_DATA_DIR: dataDir })).code).toBe(0);
    expect((await server.stop()).code).toBe(0);
    const restore = await postern(['restore', target], { POSTERN_DATA_DIR: dataDir });
    expect(restore.code, restore.stderr).toBe(0);
    expect(restore.stdout).toBe(`Restored the store from ${target} and migrated it.\n`);
    expect(adminNames(path.join(dataDir, 'postern.db'))).toEqual(['postern-admin']);

    // Into a new data directory, with the key kept beside the backup: the server serves it.
    const newDir = path.join(dir, 'new-data');
    mkdirSync(newDir, { mode: 0o700 });
    copyFileSync(path.join(dataDir, 'secret.key'), path.join(newDir, 'secret.key'));
    const restoredPort = await freePort();
    const settings = { POSTERN_DATA_DIR: newDir, POSTERN_PORT: String(restoredPort) };
    expect((await postern(['restore', target], settings)).code).toBe(0);
    const restored = await serve(settings);
    expect(await signIn(restoredPort, password)).toBe(200);
    expect((await restored.stop()).code).toBe(0);
  });

  it('says the key is missing when a store with sealed secrets is restored without it', async () => {
    const { scratch: dir, dataDir } = await copyOfWithOps();
    const target = path.join(dir, 'backup.db');
    expect((await postern(['backup', target], { POSTERN_DATA_DIR: dataDir })).code).toBe(0);

    const result = await postern(['restore', target], { POSTERN_DATA_DIR: path.join(dir, 'elsewhere') });
    expectOneLineError(
      result,
      1,
      /^postern: the store is restored and migrated, but its secret key is not there: .*restore the key kept with this backup$/,
    );
  });

  it('refuses a file that is not a Postern backup and leaves the store as it was', async () => {
    const { scratch: dir, dataDir } = await copyOfWithOps();
    const notBackup = path.join(dir, 'notes.txt');
    writeFileSync(notBackup, 'not a database at all, just some text that is long enough to not be empty\n'.repeat(20));

    const result = await postern(['restore', notBackup], { POSTERN_DATA_DIR: dataDir });
    expectOneLineError(result, 1, /^postern: .*notes\.txt is not a Postern SQLite backup \(/);
    expectOneLineError(
      await postern(['restore', path.join(dir, 'missing.db')], { POSTERN_DATA_DIR: dataDir }),
      1,
      /^postern: cannot read .*missing\.db \(ENOENT\)$/,
    );
    expect(adminNames(path.join(dataDir, 'postern.db'))).toEqual(
      ['ops', 'postern-admin'].filter((name) => name === 'ops'),
    );
  });

  it('stops a second server on the same data directory with one line', async () => {
    const dataDir = path.join(scratch(), 'data');
    const first = await serve({ POSTERN_DATA_DIR: dataDir, POSTERN_PORT: String(await freePort()) });

    const second = await postern(['serve'], { POSTERN_DATA_DIR: dataDir, POSTERN_PORT: String(await freePort()) });
    expectOneLineError(
      second,
      2,
      new RegExp(
        `^postern: the SQLite store in ${dataDir} is in use by another process \\(pid ${first.child.pid}\\); ` +
          'SQLite is single-process — use PostgreSQL \\(DATABASE_URL\\) to run several servers$',
      ),
    );
    expect(first.child.exitCode).toBeNull();
    // Killed without a chance to clean up: the kernel drops the lock, and the next server starts.
    first.child.kill('SIGKILL');
    await first.finished;
    const next = await serve({ POSTERN_DATA_DIR: dataDir, POSTERN_PORT: String(await freePort()) });
    expect((await next.stop()).code).toBe(0);
  });
});

const PG_BASE = process.env.POSTERN_TEST_DATABASE_URL ?? '';
const pgToolsMissing = (() => {
  try {
    execFileSync('pg_dump', ['--version'], { stdio: 'ignore' });
    execFileSync('psql', ['--version'], { stdio: 'ignore' });
    return null;
  } catch {
    return 'pg_dump or psql is not installed (apt install postgresql-client)';
  }
})();

async function onDatabase<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * A database of this test worker's on the test server, `<worker's database>_backup_<role>`, with an
 * empty public schema. It is made on the first run and kept, like the worker's own database
 * (postgres-per-worker.ts): CREATE and DROP DATABASE cost a checkpoint of the whole server each,
 * seconds while other tests write to it, where emptying a schema costs milliseconds.
 */
async function workerDatabase(role: string): Promise<{
  url: string;
  query<T>(text: string): Promise<T[]>;
  empty(): Promise<void>;
}> {
  const url = new URL(PG_BASE);
  const name = `${decodeURIComponent(url.pathname.slice(1))}_backup_${role}`;
  await onDatabase(PG_BASE, async (client) => {
    const exists = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (exists.rowCount !== 0) return;
    try {
      await client.query(`create database "${name.replaceAll('"', '""')}"`);
    } catch (error) {
      // Another run's worker of the same number made it first.
      const code = (error as { code?: string }).code;
      if (code !== '42P04' && code !== '23505') throw error;
    }
  });
  url.pathname = `/${encodeURIComponent(name)}`;
  const query = <T>(text: string) =>
    onDatabase(url.toString(), async (client) => (await client.query(text)).rows as T[]);
  const empty = async () => {
    await query('drop schema if exists public cascade; create schema public');
  };
  await empty();
  return { url: url.toString(), query, empty };
}

describe.skipIf(PG_BASE === '' || pgToolsMissing !== null)(
  `postern backup and restore on PostgreSQL${PG_BASE === '' ? ' (POSTERN_TEST_DATABASE_URL is unset)' : pgToolsMissing === null ? '' : ` (${pgToolsMissing})`}`,
  { timeout: 120_000 },
  () => {
    it('dumps with pg_dump, refuses while a server is connected, and restores into another database', async () => {
      const dir = scratch();
      const [source, copy] = await Promise.all([workerDatabase('source'), workerDatabase('copy')]);
      try {
        const key = randomBytes(32).toString('base64');
        const on = (url: string) => ({
          DATABASE_URL: url,
          POSTERN_DATA_DIR: path.join(dir, 'data'),
          POSTERN_SECRET_KEY: key,
        });
        expect((await postern(['admin', 'create', '-u', 'ops'], on(source.url))).code).toBe(0);
        const target = path.join(dir, 'postern.dump');
        const backup = await postern(['backup', target], on(source.url));
        expect(backup.code, backup.stderr).toBe(0);
        expect(backup.stdout).toContain('keep a copy of the POSTERN_SECRET_KEY value in the server settings');
        expect(statSync(target).mode & 0o777).toBe(0o600);

        // A table of a newer release in the target is dropped with the rest of Postern's schema.
        expect((await postern(['migrate'], on(copy.url))).code).toBe(0);
        await copy.query('create table leftover_of_a_newer_release (id int)');

        const serverConnection = new pg.Client({ connectionString: copy.url, application_name: 'postern-standin' });
        await serverConnection.connect();
        try {
          const refused = await postern(['restore', target], on(copy.url));
          expectOneLineError(
            refused,
            1,
            /^postern: 1 connection\(s\) of running Postern servers are open on PostgreSQL .*; stop every server first \(or pass --force\)$/,
          );
        } finally {
          await serverConnection.end();
        }
        const restore = await postern(['restore', target], on(copy.url));
        expect(restore.code, restore.stderr).toBe(0);
        const admins = await copy.query<{ user_name: string }>('select user_name from admins order by user_name');
        expect(admins.map((row) => row.user_name)).toEqual(['ops']);
        expect(
          await copy.query("select 1 from information_schema.tables where table_name = 'leftover_of_a_newer_release'"),
        ).toEqual([]);
        // The restored store serves its admins: the same key opens it.
        expect(
          (await postern(['admin', 'reset-password', 'ops', '--password-stdin'], on(copy.url), 'a new password\n'))
            .code,
        ).toBe(0);

        const wrongKey = await postern(['restore', target], {
          ...on(copy.url),
          POSTERN_SECRET_KEY: randomBytes(32).toString('base64'),
        });
        expectOneLineError(
          wrongKey,
          1,
          /^postern: the store is restored and migrated, but its secret key is not there: POSTERN_SECRET_KEY: /,
        );
        expect(existsSync(path.join(dir, 'data', 'secret.key'))).toBe(false);
      } finally {
        await Promise.all([source.empty(), copy.empty()]);
      }
    });
  },
);
