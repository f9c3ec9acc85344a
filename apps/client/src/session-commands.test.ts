import { existsSync } from 'node:fs';
import { GrantStatus } from '@postern/protocol';
import { describe, expect, it } from 'vitest';
import { ExitCode } from './exit-codes.js';
import { runLogin } from './login.js';
import { runLogout, runStatus } from './session-commands.js';
import { readSession } from './session-file.js';
import { givenServer, readTestKey } from './test-support/fixtures.js';

/** A fake server and a session signed in on it by `login --knoc "Backup DB"`. */
async function givenLoggedIn() {
  const world = await givenServer('auto', {
    knocs: [
      { id: 'k1', name: 'Backup DB' },
      { id: 'k2', name: 'Wiki' },
    ],
  });
  await runLogin(
    { apiFor: world.apiFor, clock: world.clock, readKey: readTestKey },
    { server: world.server.url, sessionFile: world.sessionFile, knocs: ['Backup DB'], timeoutMs: 30_000 },
  );
  return world;
}

describe('postern-client status', () => {
  it("reports the requested knocs, the session's end and the address (exit 0)", async () => {
    const { server, apiFor, sessionFile } = await givenLoggedIn();

    const result = await runStatus(apiFor, sessionFile);

    expect(result.exitCode).toBe(ExitCode.Ok);
    expect(result.document).toMatchObject({
      OK: true,
      Running: true,
      Server: server.url,
      UserName: 'backup-bot',
      Address: '198.51.100.7',
      Licensed: true,
      Knocs: [{ ID: 'k1', Name: 'Backup DB', Granted: true, StatusCode: GrantStatus.Granted }],
    });
    expect(result.lines[0]).toMatch(/^Session of backup-bot on http:\/\/127\.0\.0\.1:\d+: running, ends /);
  });

  it('shows a knoc that is no longer granted', async () => {
    const { server, apiFor, sessionFile } = await givenLoggedIn();
    server.dropGrants();

    const result = await runStatus(apiFor, sessionFile);

    expect(result.exitCode).toBe(ExitCode.Ok);
    expect(result.document.Knocs).toEqual([expect.objectContaining({ Granted: false, Status: 'Created' })]);
  });

  it('is exit 11 without a saved session', async () => {
    const { apiFor, sessionFile } = await givenServer('auto');

    await expect(runStatus(apiFor, sessionFile)).rejects.toMatchObject({
      exitCode: ExitCode.NoSession,
      message: expect.stringContaining('postern-client login starts one') as string,
    });
  });

  it('is exit 11 when the session has ended, and forgets it', async () => {
    const { server, apiFor, sessionFile } = await givenLoggedIn();
    server.endAllSessions();

    await expect(runStatus(apiFor, sessionFile)).rejects.toMatchObject({ exitCode: ExitCode.NoSession });
    expect(existsSync(sessionFile)).toBe(false);
  });
});

describe('postern-client logout', () => {
  it('ends the session on the server and deletes the session file', async () => {
    const { server, apiFor, sessionFile } = await givenLoggedIn();
    const token = readSession(sessionFile)?.cookie.split('=')[1];

    const result = await runLogout(apiFor, sessionFile);

    expect(result).toMatchObject({ exitCode: ExitCode.Ok, document: { LoggedOut: true } });
    expect(server.requestsTo('POST', '/api/logout').map((request) => request.session)).toEqual([token]);
    expect(server.liveSessions()).toEqual([]);
    expect(existsSync(sessionFile)).toBe(false);
  });

  it('is exit 0 with nothing saved, and says so', async () => {
    const { apiFor, sessionFile } = await givenServer('auto');

    const result = await runLogout(apiFor, sessionFile);

    expect(result).toMatchObject({ exitCode: ExitCode.Ok, document: { LoggedOut: false } });
    expect(result.lines).toEqual([`No session saved in ${sessionFile}; nothing to log out.`]);
  });

  it('keeps the session file when the server cannot be reached, so the logout can be tried again', async () => {
    const { server, apiFor, sessionFile } = await givenLoggedIn();
    server.down = true;

    await expect(runLogout(apiFor, sessionFile)).rejects.toMatchObject({ problem: 'unreachable' });
    expect(existsSync(sessionFile)).toBe(true);
  });
});
