import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, freePort, REPO_ROOT, startSourceCommand, type Finished } from '@postern/test-support';
import { loadSqliteDriver } from '../src/store/sqlite-driver.js';

const MAIN = path.join(REPO_ROOT, 'apps/server/src/main.ts');
const PASSWORD_LINE = /Its password is shown only this once:\n\n\s+(\S+)\n/;

let scratch: string;
beforeEach(() => {
  scratch = mkdtempSync(path.join(tmpdir(), 'postern-backup-'));
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

function env(settings: Record<string, string>) {
  return cleanEnv(['POSTERN_', 'DATABASE_URL'], {
    POSTERN_IP_DISCOVERY_PORTS: 'off',
    ...settings,
  });
}

function postern(args: string[], settings: Record<string, string>, input?: string): Promise<Finished> {
  return startSourceCommand(MAIN, args, { env: env(settings), ...(input === undefined ? {} : { input }) }).finished;
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

// Each case starts real processes from source (bundled once, see startSourceCommand).
describe('postern backup and restore on the embedded SQLite store', { timeout: 90_000 }, () => {
  it('backs up while the server writes, refuses to restore under it, and restores with the data', async () => {
    const dataDir = path.join(scratch, 'data');
    const port = await freePort();
    const server = startSourceCommand(MAIN, ['serve'], {
      env: env({ POSTERN_DATA_DIR: dataDir, POSTERN_PORT: String(port) }),
    });
    await server.waitForOutput(/Postern is listening/, 30_000);
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
    while (signIns < 3) await new Promise((resolve) => setTimeout(resolve, 20));
    const target = path.join(scratch, 'postern-backup.db');
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
    const newDir = path.join(scratch, 'new-data');
    mkdirSync(newDir, { mode: 0o700 });
    copyFileSync(path.join(dataDir, 'secret.key'), path.join(newDir, 'secret.key'));
    const restoredPort = await freePort();
    const settings = { POSTERN_DATA_DIR: newDir, POSTERN_PORT: String(restoredPort) };
    expect((await postern(['restore', target], settings)).code).toBe(0);
    const restored = startSourceCommand(MAIN, ['serve'], { env: env(settings) });
    await restored.waitForOutput(/Postern is listening/, 30_000);
    expect(await signIn(restoredPort, password)).toBe(200);
    expect((await restored.stop()).code).toBe(0);
  });

  it('says the key is missing when a store with sealed secrets is restored without it', async () => {
    const dataDir = path.join(scratch, 'data');
    expect((await postern(['admin', 'create', '-u', 'ops'], { POSTERN_DATA_DIR: dataDir })).code).toBe(0);
    const target = path.join(scratch, 'backup.db');
    expect((await postern(['backup', target], { POSTERN_DATA_DIR: dataDir })).code).toBe(0);

    const result = await postern(['restore', target], { POSTERN_DATA_DIR: path.join(scratch, 'elsewhere') });
    expectOneLineError(
      result,
      1,
      /^postern: the store is restored and migrated, but its secret key is not there: .*restore the key kept with this backup$/,
    );
  });

  it('refuses a file that is not a Postern backup and leaves the store as it was', async () => {
    const dataDir = path.join(scratch, 'data');
    expect((await postern(['admin', 'create', '-u', 'ops'], { POSTERN_DATA_DIR: dataDir })).code).toBe(0);
    const notBackup = path.join(scratch, 'notes.txt');
    writeFileSync(notBackup, 'not a database at all, just some text that is long enough to not be empty\n'.repeat(20));

    const result = await postern(['restore', notBackup], { POSTERN_DATA_DIR: dataDir });
    expectOneLineError(result, 1, /^postern: .*notes\.txt is not a Postern SQLite backup \(/);
    expectOneLineError(
      await postern(['restore', path.join(scratch, 'missing.db')], { POSTERN_DATA_DIR: dataDir }),
      1,
      /^postern: cannot read .*missing\.db \(ENOENT\)$/,
    );
    expect(adminNames(path.join(dataDir, 'postern.db'))).toEqual(
      ['ops', 'postern-admin'].filter((name) => name === 'ops'),
    );
  });

  it('stops a second server on the same data directory with one line', async () => {
    const dataDir = path.join(scratch, 'data');
    const first = startSourceCommand(MAIN, ['serve'], {
      env: env({ POSTERN_DATA_DIR: dataDir, POSTERN_PORT: String(await freePort()) }),
    });
    await first.waitForOutput(/Postern is listening/, 30_000);

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
    const next = startSourceCommand(MAIN, ['serve'], {
      env: env({ POSTERN_DATA_DIR: dataDir, POSTERN_PORT: String(await freePort()) }),
    });
    await next.waitForOutput(/Postern is listening/, 30_000);
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

/** A database of its own on the test server, dropped afterwards. */
async function scratchDatabase(): Promise<{
  url: string;
  query<T>(text: string): Promise<T[]>;
  drop(): Promise<void>;
}> {
  const name = `postern_backup_${randomBytes(5).toString('hex')}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: PG_BASE });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(PG_BASE);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    query: async <T>(text: string) => {
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      try {
        return (await client.query(text)).rows as T[];
      } finally {
        await client.end();
      }
    },
    drop: () => admin(`drop database ${name} with (force)`),
  };
}

describe.skipIf(PG_BASE === '' || pgToolsMissing !== null)(
  `postern backup and restore on PostgreSQL${PG_BASE === '' ? ' (POSTERN_TEST_DATABASE_URL is unset)' : pgToolsMissing === null ? '' : ` (${pgToolsMissing})`}`,
  { timeout: 90_000 },
  () => {
    it('dumps with pg_dump, refuses while a server is connected, and restores into another database', async () => {
      const source = await scratchDatabase();
      const copy = await scratchDatabase();
      try {
        const key = randomBytes(32).toString('base64');
        const on = (url: string) => ({
          DATABASE_URL: url,
          POSTERN_DATA_DIR: path.join(scratch, 'data'),
          POSTERN_SECRET_KEY: key,
        });
        expect((await postern(['admin', 'create', '-u', 'ops'], on(source.url))).code).toBe(0);
        const target = path.join(scratch, 'postern.dump');
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
        expect(existsSync(path.join(scratch, 'data', 'secret.key'))).toBe(false);
      } finally {
        await source.drop();
        await copy.drop();
      }
    });
  },
);
