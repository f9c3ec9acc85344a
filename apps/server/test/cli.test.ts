import { cpSync, existsSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { POSTERN_VERSION } from '@postern/protocol';
import { cleanEnv, freePort, REPO_ROOT, startSourceCommand, type Finished } from '@postern/test-support';
import { loadSqliteDriver } from '../src/store/sqlite-driver.js';
import { commandCases, once, START_DEADLINE_MS } from './support/command-cases.js';

const MAIN = path.join(REPO_ROOT, 'apps/server/src/main.ts');
const PASSWORD_LINE = /Its password is shown only this once:\n\n\s+(\S+)\n/;

/*
 * Each case starts the real command (bundled once per file, see startSourceCommand): a process costs
 * about half a second of CPU, most of it loading the server's modules, so the file starts each
 * distinct invocation once. What several cases start from (a migrated store, a store with an admin)
 * is made once, by the invocation one case looks at, and copied for the others; each case works in
 * a directory of its own. The cases run one at a time: run at once, they were no faster on two
 * cores and cost more CPU.
 */
const { scratch, track } = commandCases('postern-cli-');

/** A new directory holding a copy of `dir`'s data directory. */
function copyOf(dir: string): string {
  const copy = scratch();
  cpSync(path.join(dir, 'data'), path.join(copy, 'data'), { recursive: true });
  return copy;
}

/**
 * The runner's environment minus any Postern setting, pointed at `dir`'s data directory. The
 * metrics listener is off: its fixed default port may be taken by another test's server.
 */
function env(dir: string, extra: Record<string, string> = {}) {
  return cleanEnv(['POSTERN_', 'DATABASE_URL'], {
    POSTERN_DATA_DIR: path.join(dir, 'data'),
    POSTERN_METRICS_LISTEN: 'off',
    ...extra,
  });
}

function postern(dir: string, args: string[], extra: Record<string, string> = {}, input?: string): Promise<Finished> {
  return startSourceCommand(MAIN, args, { env: env(dir, extra), ...(input === undefined ? {} : { input }) }).finished;
}

/** `postern serve` on `dir`, listening on `port`, once it says so. */
async function serve(dir: string, port: number) {
  const server = track(startSourceCommand(MAIN, ['serve'], { env: env(dir, { POSTERN_PORT: String(port) }) }));
  await server.waitForOutput(/Postern is listening/, START_DEADLINE_MS);
  return server;
}

async function signIn(port: number, password: string) {
  const response = await fetch(`http://127.0.0.1:${port}/api/admin/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ UserName: 'postern-admin', Password: password }),
  });
  return response.status;
}

/** One line on stderr, naming what is wrong, and no stack trace. */
function expectOneLineError(result: Finished, pattern: RegExp) {
  expect(result.code).toBe(2);
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

/** `postern migrate` on a new data directory: one case looks at it, another starts from its store. */
const migrated = once(async () => {
  const dir = scratch();
  return { dir, result: await postern(dir, ['migrate']) };
});

/** `postern admin create` of "ops" on a new data directory: one case looks at it, another starts from its store. */
const withOps = once(async () => {
  const dir = scratch();
  return { dir, result: await postern(dir, ['admin', 'create', '--username', 'ops', '--name', 'Operations']) };
});

describe('postern command line', { timeout: 120_000 }, () => {
  it('prints its version', async () => {
    const result = await postern(scratch(), ['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(POSTERN_VERSION);
  });

  it.each([
    [{ POSTERN_PORT: 'abc' }, /^postern: POSTERN_PORT: must be a whole number from 1 to 65535 \(got "abc"\)$/],
    [{ DATABASE_URL: 'mysql://root@localhost/x' }, /^postern: DATABASE_URL: must start with postgres:\/\//],
    [
      { DATABASE_URL: 'postgres://postern:hunter2@127.0.0.1:1/postern' },
      /^postern: DATABASE_URL: cannot connect to PostgreSQL 127\.0\.0\.1:1\/postern \(ECONNREFUSED/,
    ],
    [
      { POSTERN_METRICS_LISTEN: '0.0.0.0:9464' },
      /^postern: POSTERN_METRICS_LISTEN: 0\.0\.0\.0 is not a loopback address: set POSTERN_METRICS_TOKEN/,
    ],
    [
      { POSTERN_TRUSTED_PROXIES: 'everyone' },
      /^postern: POSTERN_TRUSTED_PROXIES: "everyone" is not an IP address or CIDR range$/,
    ],
  ])('stops with exit code 2 and one line for %o', async (settings, message) => {
    const result = await postern(scratch(), ['serve'], settings);
    expectOneLineError(result, message);
    expect(result.stderr).not.toContain('hunter2');
  });

  it('stops with exit code 2 when the data directory cannot be written', async () => {
    const dir = scratch();
    const file = path.join(dir, 'not-a-dir');
    writeFileSync(file, '');
    const result = await postern(dir, ['serve'], { POSTERN_DATA_DIR: path.join(file, 'data') });
    expectOneLineError(
      result,
      /^postern: POSTERN_DATA_DIR: .*not-a-dir\/data is not a writable directory \(ENOTDIR\)$/,
    );
  });

  it('stops with exit code 2 when its port is taken', async () => {
    const blocker: Server = createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    try {
      const result = await postern(scratch(), ['serve'], { POSTERN_PORT: String(port) });
      expectOneLineError(result, new RegExp(`^postern: POSTERN_PORT: port ${port} is already in use$`));
    } finally {
      blocker.close();
    }
  });

  it('answers a mistyped command line with exit code 2', async () => {
    const result = await postern(scratch(), ['serve', '--no-such-flag']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown option '--no-such-flag'");
  });

  it('migrates a new store into a private data directory', async () => {
    const { dir, result } = await migrated();
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^SQLite .*postern\.db is up to date$/m);
    expect(statSync(path.join(dir, 'data')).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(dir, 'data', 'postern.db')).isFile()).toBe(true);
  });

  it('refuses a store from a newer release with exit code 2', async () => {
    const store = await migrated();
    expect(store.result.code).toBe(0);
    const dir = copyOf(store.dir);
    const Database = loadSqliteDriver();
    const db = new Database(path.join(dir, 'data', 'postern.db'));
    db.prepare("insert into postern_migration (name, timestamp) values ('9000-future', '2030-01-01')").run();
    db.close();
    const result = await postern(dir, ['migrate']);
    expectOneLineError(
      result,
      /^postern: the store's schema is newer than this Postern \(it has migration 9000-future/,
    );
  });

  it('creates the first admin once, prints the password once, and keeps it across restarts', async () => {
    const dir = scratch();
    const port = await freePort();
    const first = await serve(dir, port);
    const password = PASSWORD_LINE.exec(first.stdout())?.[1];
    expect(password).toMatch(/^[A-Za-z0-9]{24}$/);
    expect(await signIn(port, password ?? '')).toBe(200);
    expect(await signIn(port, 'wrong password')).toBe(401);
    expect((await first.stop()).code).toBe(0);

    const second = await serve(dir, port);
    expect(second.stdout()).not.toMatch(/password/i);
    expect(await signIn(port, password ?? '')).toBe(200);
    expect((await second.stop()).code).toBe(0);
  });

  it('creates an admin with a generated or a piped password', async () => {
    const store = await withOps();
    const generated = store.result;
    expect(generated.code).toBe(0);
    expect(generated.stdout).toMatch(/^Created admin "ops"\.\nPassword \(shown once\): [A-Za-z0-9]{24}\n$/);

    const dir = copyOf(store.dir);
    const piped = await postern(dir, ['admin', 'create', '-u', 'sec', '--password-stdin'], {}, 'a piped password\n');
    expect(piped.code).toBe(0);
    expect(piped.stdout).toBe('Created admin "sec".\n');

    const duplicate = await postern(dir, ['admin', 'create', '-u', 'ops']);
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toBe('postern: an admin named "ops" exists\n');

    const tooShort = await postern(dir, ['admin', 'create', '-u', 'tiny', '--password-stdin'], {}, 'short\n');
    expect(tooShort.code).toBe(1);
    expect(tooShort.stderr).toBe('postern: Password: Must be between 8 and 64 characters\n');
  });

  it('keeps the server rule on the secret key: a lost key file stops an admin command, and none is made', async () => {
    const store = await withOps();
    expect(store.result.code).toBe(0);
    const dir = copyOf(store.dir);
    const keyFile = path.join(dir, 'data', 'secret.key');
    rmSync(keyFile);

    expectOneLineError(
      await postern(dir, ['admin', 'reset-password', 'ops']),
      /^postern: POSTERN_SECRET_KEY: .*secret\.key is missing, but the store holds secrets sealed with the key it held; /,
    );
    expect(existsSync(keyFile)).toBe(false);
  });

  it('resets an admin password so the old one stops working', async () => {
    const dir = scratch();
    const port = await freePort();
    const server = await serve(dir, port);
    const oldPassword = PASSWORD_LINE.exec(server.stdout())?.[1] ?? '';

    const reset = await postern(dir, ['admin', 'reset-password', '--password-stdin'], {}, 'brand new password\n');
    expect(reset.code).toBe(0);
    expect(reset.stdout).toBe('Reset the password of admin "postern-admin"; their sessions have ended.\n');
    expect(await signIn(port, oldPassword)).toBe(401);
    expect(await signIn(port, 'brand new password')).toBe(200);

    const unknown = await postern(dir, ['admin', 'reset-password', 'nobody']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('postern: no admin named "nobody"\n');
    await server.stop();
  });
});
