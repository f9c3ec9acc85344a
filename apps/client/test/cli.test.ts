import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { cleanEnv, freePort, REPO_ROOT, startSourceCommand, type Finished } from '@postern/test-support';
import { ErrorCodes } from '@postern/protocol';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ExitCode } from '../src/exit-codes.js';
import { FakePosternServer } from '../src/test-support/fake-postern-server.js';
import { KEY } from '../src/test-support/fixtures.js';
import { permissions, tempDir } from '../src/test-support/temp-dir.js';

const CLIENT_MAIN = path.join(REPO_ROOT, 'apps/client/src/main.ts');
const VERSION = (
  JSON.parse(readFileSync(path.join(REPO_ROOT, 'apps/client/package.json'), 'utf8')) as { version: string }
).version;

/** A private home with no POSTERN_CLIENT_* variables from the test runner, plus `extra`. */
function clientEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return cleanEnv(['POSTERN_CLIENT_', 'XDG_CONFIG_HOME'], {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    ...extra,
  });
}

function run(args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<Finished> {
  return startSourceCommand(CLIENT_MAIN, args, { env, input }).finished;
}

/** No stack trace: every failure is one line on stderr. */
function expectOneLine(result: Finished): void {
  expect(result.stderr).not.toMatch(/^\s+at /m);
  expect(
    result.stderr
      .trim()
      .split('\n')
      .filter((line) => !line.startsWith('(postern-client --help')),
  ).toHaveLength(1);
}

/**
 * A fake server whose grants are on the device by the first status call after they were made
 * (pendingPolls 0): the client still polls for them, but its first poll, a second after asking,
 * finds them; its growing waits are login.test.ts's subject, on a manual clock.
 */
async function givenFake(): Promise<FakePosternServer> {
  const server = await FakePosternServer.start({
    now: () => Date.now(),
    keys: { [KEY]: { userName: 'backup-bot' } },
    knocs: [
      { id: 'k1', name: 'Backup DB', pendingPolls: 0 },
      { id: 'k2', name: 'Wiki', clickToGrant: false, pendingPolls: 0 },
    ],
  });
  onTestFinished(() => server.close());
  return server;
}

// Each test starts Node processes; they run one at a time, as a small machine runs them fastest.
describe('postern-client command line', { timeout: 60_000 }, () => {
  it('prints the version from package.json', async () => {
    const result = await run(['--version'], clientEnv(tempDir()));

    expect(result).toMatchObject({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
  });

  it('lists the commands and the exit codes in --help', async () => {
    const result = await run(['--help'], clientEnv(tempDir()));

    expect(result.code).toBe(0);
    for (const command of ['init', 'login', 'status', 'logout'])
      expect(result.stdout).toMatch(new RegExp(`^\\s+${command} `, 'm'));
    expect(result.stdout).toMatch(/^\s+70 {2}internal error$/m);
    expect(result.stdout).toContain('NODE_EXTRA_CA_CERTS');
  });

  it('ends a usage error with exit 1 and one line', async () => {
    const result = await run(['login', '--timeout', 'soon'], clientEnv(tempDir()));

    expect(result.code).toBe(ExitCode.Usage);
    expect(result.stderr).toMatch(/^postern-client: option '--timeout <seconds>' argument 'soon' is invalid/);
    expectOneLine(result);
  });

  it('runs init, login, status and logout against the server, each parsable with --json', async () => {
    const server = await givenFake();
    const home = tempDir();
    const env = clientEnv(home);
    const configFile = path.join(home, 'etc', 'config.json');

    const init = await run(['init', '--config', configFile, '--server', server.url, '--key-stdin'], env, `${KEY}\n`);
    expect(init.code).toBe(0);
    expect(permissions(statSync(path.join(home, 'etc', 'key')).mode)).toBe(0o600);

    const login = await run(['login', '--config', configFile, '--knoc', 'Backup DB', '--json'], env);
    expect(login.code).toBe(0);
    expect(JSON.parse(login.stdout)).toMatchObject({
      OK: true,
      ExitCode: 0,
      UserName: 'backup-bot',
      Knocs: [{ Name: 'Backup DB', Granted: true, Status: 'Granted' }],
    });
    const sessionFile = path.join(home, 'etc', 'session.json');
    expect(permissions(statSync(sessionFile).mode)).toBe(0o600);

    const status = await run(['status', '--config', configFile, '--json'], env);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ Running: true, Knocs: [{ ID: 'k1', Granted: true }] });

    const logout = await run(['--config', configFile, 'logout', '--json'], env);
    expect(logout.code).toBe(0);
    expect(JSON.parse(logout.stdout)).toMatchObject({ LoggedOut: true });
    expect(existsSync(sessionFile)).toBe(false);
    expect(server.liveSessions()).toEqual([]);

    const after = await run(['status', '--config', configFile, '--json'], env);
    expect(after.code).toBe(ExitCode.NoSession);
    expect(JSON.parse(after.stdout)).toMatchObject({ OK: false, ExitCode: ExitCode.NoSession });
  });

  it('ends a refused key with exit 2, a JSON document and one line on stderr', async () => {
    const server = await givenFake();
    const account = server.keys.get(KEY);
    if (account !== undefined) account.refusal = { status: 401, code: ErrorCodes.unauthorised };
    const home = tempDir();

    const result = await run(['login', '--server', server.url, '--json'], clientEnv(home, { POSTERN_CLIENT_KEY: KEY }));

    expect(result.code).toBe(ExitCode.KeyRefused);
    expect(JSON.parse(result.stdout)).toEqual({
      OK: false,
      ExitCode: ExitCode.KeyRefused,
      Error: { Message: expect.stringContaining('refused the API key') as string, Code: ErrorCodes.unauthorised },
    });
    expectOneLine(result);
    expect(result.stderr).not.toContain(KEY);
  });

  it('ends with exit 8 when the server does not answer', async () => {
    const port = await freePort();

    const result = await run(
      ['login', '--server', `http://127.0.0.1:${port}`],
      clientEnv(tempDir(), { POSTERN_CLIENT_KEY: KEY }),
    );

    expect(result.code).toBe(ExitCode.Unreachable);
    expect(result.stderr).toMatch(/^postern-client: could not reach http:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/);
    expectOneLine(result);
  });

  it('ends --persist --json on an unknown knoc with exit 5 and a failed event line', async () => {
    const server = await givenFake();

    const result = await run(
      ['login', '--server', server.url, '--persist', '--json', '--knoc', 'Mail'],
      clientEnv(tempDir(), { POSTERN_CLIENT_KEY: KEY }),
    );

    expect(result.code).toBe(ExitCode.KnocUnknown);
    const lines = result.stdout.trim().split('\n');
    expect(JSON.parse(lines.at(-1) ?? '')).toMatchObject({ Event: 'failed', ExitCode: ExitCode.KnocUnknown });
    expect(result.stderr).toBe(
      'postern-client: no knoc "Mail" for this user; it may use: "Backup DB" (k1), "Wiki" (k2)\n',
    );
    expect(server.liveSessions()).toEqual([]);
  });

  it('keeps the access open with --persist and logs out on SIGTERM', async () => {
    const server = await givenFake();
    const home = tempDir();
    const sessionFile = path.join(home, 'session.json');
    const env = clientEnv(home, { POSTERN_CLIENT_KEY: KEY });
    const persist = startSourceCommand(
      CLIENT_MAIN,
      ['login', '--server', server.url, '--session-file', sessionFile, '--persist', '--json'],
      { env },
    );
    onTestFinished(() => void persist.stop());

    await persist.waitForOutput(/"Event":"knoc".*"Name":"Backup DB","Granted":true/, 30_000);
    await persist.waitForOutput(/"Event":"knoc".*"Name":"Wiki","Granted":true/, 30_000);
    expect(existsSync(sessionFile)).toBe(true);
    const result = await persist.stop();

    expect(result.code).toBe(0);
    expect(server.requestsTo('POST', '/api/logout')).toHaveLength(1);
    expect(server.liveSessions()).toEqual([]);
    expect(existsSync(sessionFile)).toBe(false);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { Event: string }).Event);
    expect(events.slice(0, 2)).toEqual(['signed-in', 'address']);
    expect(events.slice(-2)).toEqual(['stopping', 'stopped']);
  });
});
