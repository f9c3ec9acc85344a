import { existsSync, statSync, writeFileSync } from 'node:fs';
import { ErrorCodes, GrantStatus, V1_LOGIN_PATH } from '@postern/protocol';
import { describe, expect, it } from 'vitest';
import { ExitCode } from './exit-codes.js';
import { toClientError } from './failure-mapping.js';
import { DEFAULT_GRANT_TIMEOUT_MS, runLogin } from './login.js';
import { readSession, saveSession } from './session-file.js';
import type { FakeKnoc } from './test-support/fake-postern-server.js';
import { givenServer, readTestKey } from './test-support/fixtures.js';
import { permissions } from './test-support/temp-dir.js';

const BACKUP_DB: FakeKnoc = { id: 'k1', name: 'Backup DB' };
const WIKI: FakeKnoc = { id: 'k2', name: 'Wiki' };

async function login(knocs: FakeKnoc[], requested: string[] = [], timeoutMs = DEFAULT_GRANT_TIMEOUT_MS) {
  const world = await givenServer('auto', { knocs });
  const run = () =>
    runLogin(
      { apiFor: world.apiFor, clock: world.clock, readKey: readTestKey },
      { server: world.server.url, sessionFile: world.sessionFile, knocs: requested, timeoutMs },
    );
  return { ...world, run };
}

describe('postern-client login', () => {
  it('asks for each click-to-grant knoc, waits until granted and saves the session with mode 600', async () => {
    const { server, clock, sessionFile, run } = await login([BACKUP_DB, WIKI], ['Backup DB']);

    const result = await run();

    expect(result.exitCode).toBe(ExitCode.Ok);
    expect(server.requestsTo('POST', '/api/grant').map((request) => request.body)).toEqual([{ ACLID: 'k1', IPs: [] }]);
    const [session] = server.liveSessions();
    expect(result.document).toMatchObject({
      OK: true,
      ExitCode: 0,
      UserName: 'backup-bot',
      Address: '198.51.100.7',
      SessionEnds: new Date(session?.endsAt ?? 0).toISOString(),
      SessionFile: sessionFile,
      Knocs: [
        {
          ID: 'k1',
          Name: 'Backup DB',
          Granted: true,
          Status: 'Granted',
          StatusCode: GrantStatus.Granted,
          ExpiresAt: new Date(session?.endsAt ?? 0).toISOString(),
          Error: '',
        },
      ],
    });
    expect(result.lines.join('\n')).toMatch(
      /Backup DB {2}granted until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d \(2030-/,
    );
    expect(readSession(sessionFile)).toMatchObject({ server: server.url, userName: 'backup-bot', knocs: ['k1'] });
    expect(permissions(statSync(sessionFile).mode)).toBe(0o600);
    // The first poll comes after a second.
    expect(clock.sleeps[0]).toBe(1_000);
  });

  it('asks for nothing that the sign-in granted already (knocs without ClickToGrant)', async () => {
    const { server, run } = await login([{ ...BACKUP_DB, clickToGrant: false }, WIKI]);

    const result = await run();

    expect(result.exitCode).toBe(ExitCode.Ok);
    expect(server.requestsTo('POST', '/api/grant').map((request) => request.body)).toEqual([{ ACLID: 'k2', IPs: [] }]);
  });

  it('polls at growing steps while a grant is pending', async () => {
    const { clock, run } = await login([{ ...BACKUP_DB, pendingPolls: 4 }]);

    expect((await run()).exitCode).toBe(ExitCode.Ok);
    expect(clock.sleeps).toEqual([1_000, 1_500, 2_250, 3_375, 5_000]);
  });

  it('gives up at the timeout with exit 7, says what the knoc still waited for, and logs the session out', async () => {
    const { server, sessionFile, run } = await login([{ ...BACKUP_DB, outcome: 'pending' }, WIKI], [], 10_000);

    const result = await run();

    expect(result.exitCode).toBe(ExitCode.NotGranted);
    expect(result.problem).toBe('1 of 2 knocs not granted: "Backup DB": still pending after 10 s');
    expect(result.document).toMatchObject({ OK: false, ExitCode: ExitCode.NotGranted, SessionFile: null });
    expect(server.liveSessions()).toEqual([]);
    expect(existsSync(sessionFile)).toBe(false);
  });

  it("reports each failed knoc's error text (exit 7)", async () => {
    const { run } = await login([
      { ...BACKUP_DB, outcome: 'error', error: 'ipset: set backup not found' },
      { ...WIKI, agentOnline: false },
    ]);

    const result = await run();

    expect(result.exitCode).toBe(ExitCode.NotGranted);
    expect(result.document.Knocs).toEqual([
      expect.objectContaining({
        Name: 'Backup DB',
        Granted: false,
        Status: 'GrantError',
        Error: 'ipset: set backup not found',
      }),
      expect.objectContaining({
        Name: 'Wiki',
        Granted: false,
        Status: 'AgentOffline',
        Error: "the knoc's agent is offline",
      }),
    ]);
    expect(result.lines).toContain("  Wiki       NOT GRANTED: the knoc's agent is offline");
  });

  it('counts an allowlist entry as granted once the firewall has fetched it', async () => {
    const { run } = await login([{ ...BACKUP_DB, outcome: 'allowlist', pendingPolls: 2 }]);

    const result = await run();

    expect(result.exitCode).toBe(ExitCode.Ok);
    expect(result.document.Knocs).toEqual([expect.objectContaining({ Granted: true, Status: 'Read' })]);
  });

  it('refuses a knoc disabled for this address without asking the server', async () => {
    const { server, run } = await login([{ ...BACKUP_DB, disableForUser: true }], ['k1']);

    const result = await run();

    expect(result.exitCode).toBe(ExitCode.NotGranted);
    expect(result.problem).toContain('may not be used from this address');
    expect(server.requestsTo('POST', '/api/grant')).toEqual([]);
  });

  it('ends with exit 5 on an unknown knoc, and logs the session out', async () => {
    const { server, sessionFile, run } = await login([BACKUP_DB], ['Mail']);

    await expect(run()).rejects.toMatchObject({
      exitCode: ExitCode.KnocUnknown,
      message: 'no knoc "Mail" for this user; it may use: "Backup DB" (k1)',
    });
    expect(server.liveSessions()).toEqual([]);
    expect(existsSync(sessionFile)).toBe(false);
  });

  it('ends with exit 6 when the installation is not licensed', async () => {
    const { server, run } = await login([BACKUP_DB]);
    server.licensed = false;

    await expect(run()).rejects.toMatchObject({ exitCode: ExitCode.Licence });
    expect(server.requestsTo('POST', '/api/grant')).toEqual([]);
  });

  it('ends with exit 6 when this user is over the licence limit', async () => {
    const { server, run } = await login([BACKUP_DB]);
    server.userLicensed = false;

    await expect(run()).rejects.toMatchObject({
      exitCode: ExitCode.Licence,
      message: expect.stringContaining('user limit') as string,
    });
  });

  it.each([
    [401, ErrorCodes.unauthorised, ExitCode.KeyRefused],
    [401, ErrorCodes.apiKeyExpired, ExitCode.KeyExpired],
    [403, ErrorCodes.apiKeyAddressNotAllowed, ExitCode.AddressNotAllowed],
    [403, ErrorCodes.accountDisabled, ExitCode.AccountDisabled],
    [403, ErrorCodes.apiKeySignInNotAllowed, ExitCode.KeyRefused],
    [503, ErrorCodes.storeUnavailable, ExitCode.Unreachable],
  ])('ends a sign-in refused with %i %s with exit %i, saving nothing', async (status, code, exitCode) => {
    const { server, sessionFile, run } = await login([BACKUP_DB]);
    const account = server.keys.get(readTestKey().key);
    if (account !== undefined) account.refusal = { status, code };

    await expect(run().catch((error: unknown) => Promise.reject(toClientError(error)))).rejects.toMatchObject({
      exitCode,
    });
    expect(existsSync(sessionFile)).toBe(false);
  });

  it('logs out the session an earlier login saved, once the new one is in place', async () => {
    const { server, sessionFile, run } = await login([BACKUP_DB]);
    await run();
    const first = readSession(sessionFile);

    await run();

    const second = readSession(sessionFile);
    expect(second?.cookie).not.toBe(first?.cookie);
    expect(server.liveSessions().map((session) => session.token)).toEqual([second?.cookie.split('=')[1]]);
    const logouts = server.requestsTo('POST', '/api/logout');
    expect(logouts.map((request) => request.session)).toEqual([first?.cookie.split('=')[1]]);
    expect(server.requests.indexOf(logouts[0] as (typeof server.requests)[number])).toBeGreaterThan(
      server.requests.lastIndexOf(server.requestsTo('POST', '/api/grant')[1] as (typeof server.requests)[number]),
    );
  });

  it('overwrites a session file it cannot read', async () => {
    const { sessionFile, run } = await login([BACKUP_DB]);
    writeFileSync(sessionFile, 'garbage');

    expect((await run()).exitCode).toBe(ExitCode.Ok);
    expect(readSession(sessionFile)?.userName).toBe('backup-bot');
  });

  it('still succeeds when the session saved before cannot be logged out (its server is gone)', async () => {
    const { sessionFile, run } = await login([BACKUP_DB]);
    saveSession(sessionFile, {
      version: 1,
      server: 'http://127.0.0.1:9',
      cookie: 'postern_session=gone',
      userName: 'x',
      signedInAt: '2030-01-01T00:00:00.000Z',
      ends: '2030-01-01T01:00:00.000Z',
      knocs: [],
    });

    expect((await run()).exitCode).toBe(ExitCode.Ok);
    expect(readSession(sessionFile)?.cookie).not.toBe('postern_session=gone');
  });

  it('sends the key to the sign-in only', async () => {
    const { server, run } = await login([BACKUP_DB]);

    await run();

    expect(server.requests.filter((request) => request.authorization !== null).map((request) => request.path)).toEqual([
      V1_LOGIN_PATH,
    ]);
  });
});
