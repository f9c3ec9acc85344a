import { existsSync } from 'node:fs';
import { ErrorCodes, V1_LOGIN_PATH } from '@postern/protocol';
import { describe, expect, it, onTestFinished } from 'vitest';
import { PosternApi } from './api-client.js';
import { ExitCode } from './exit-codes.js';
import {
  backoffMs,
  FIRST_BACKOFF_MS,
  handoverMarginMs,
  LONGEST_BACKOFF_MS,
  runPersist,
  type PersistEvent,
} from './persist.js';
import { readSession, saveSession } from './session-file.js';
import type { FakeKnoc, FakeServerOptions } from './test-support/fake-postern-server.js';
import { givenServer, KEY, readTestKey } from './test-support/fixtures.js';

const BACKUP_DB: FakeKnoc = { id: 'k1', name: 'Backup DB' };
const INTERVAL_MS = 30_000;

/** A persist loop against the fake server, driven round by round through the manual clock. */
async function givenPersist(knocs: FakeKnoc[] = [BACKUP_DB], serverOptions: Omit<FakeServerOptions, 'now'> = {}) {
  const world = await givenServer('manual', { knocs, ...serverOptions });
  const events: PersistEvent[] = [];
  const controller = new AbortController();
  let done: Promise<number> | null = null;
  const start = (requested: string[] = []) => {
    done = runPersist(
      {
        apiFor: world.apiFor,
        clock: world.clock,
        readKey: readTestKey,
        random: () => 0.5,
        emit: (event) => events.push(event),
        signal: controller.signal,
      },
      {
        server: world.server.url,
        sessionFile: world.sessionFile,
        knocs: requested,
        intervalMs: INTERVAL_MS,
        grantTimeoutMs: 30_000,
      },
    );
    return done;
  };
  onTestFinished(async () => {
    controller.abort();
    await done?.catch(() => undefined);
  });
  const named = <E extends PersistEvent['event']>(name: E) =>
    events.filter((event): event is Extract<PersistEvent, { event: E }> => event.event === name);
  const granted = () => named('knoc').filter((event) => event.knoc.ok).length;
  const token = () => readSession(world.sessionFile)?.cookie.split('=')[1];
  return { ...world, events, named, granted, token, controller, start };
}

describe('login --persist', () => {
  it('signs in, asks for the knocs, then checks every 30 s', async () => {
    const { clock, start, named, granted, server } = await givenPersist();
    void start();

    await clock.runUntil(() => granted() === 1);

    expect(await clock.nextSleep()).toBe(INTERVAL_MS);
    expect(named('signed-in')).toEqual([
      { event: 'signed-in', userName: 'backup-bot', sessionEnds: expect.any(String) as string },
    ]);
    expect(named('address')).toEqual([{ event: 'address', address: '198.51.100.7', previous: null }]);
    expect(named('grant-requested')).toEqual([{ event: 'grant-requested', id: 'k1', name: 'Backup DB' }]);
    const statusCalls = server.requestsTo('GET', '/api/status').length;
    clock.wake();
    await clock.nextSleep();
    // A quiet round: one status call, nothing asked, nothing reported.
    expect(server.requestsTo('GET', '/api/status')).toHaveLength(statusCalls + 1);
    expect(server.requestsTo('POST', '/api/grant')).toHaveLength(1);
    expect(named('knoc')).toHaveLength(1);
  });

  it('asks again for a knoc the server no longer grants (a restored store)', async () => {
    const { clock, start, server, named, granted } = await givenPersist();
    void start();
    await clock.runUntil(() => granted() === 1);

    server.dropGrants();
    clock.wake();
    await clock.runUntil(() => server.requestsTo('POST', '/api/grant').length === 2);

    expect(named('grant-requested')).toHaveLength(2);
    expect(server.liveSessions()[0]?.grants.get('k1')?.endedAt).toBeNull();
  });

  it('asks again a moment after a grant shorter than the session ends (MaximumGrantDuration)', async () => {
    const { clock, start, server, named } = await givenPersist([{ ...BACKUP_DB, maxGrantMs: 45_000 }]);
    void start();
    await clock.runUntil(() => named('knoc').length === 1);
    const expiresAt = Date.parse(named('knoc')[0]?.knoc.expiresAt ?? '');

    await clock.runUntil(() => server.requestsTo('POST', '/api/grant').length === 2);

    expect(server.requestsTo('POST', '/api/grant')[1]?.at).toBe(expiresAt + 1_000);
  });

  it('signs in again when the session has ended, and grants on the new session', async () => {
    const { clock, start, server, named, token } = await givenPersist();
    void start();
    await clock.runUntil(() => named('knoc').length === 1);
    const first = token();

    server.endAllSessions();
    clock.wake();
    await clock.runUntil(() => named('signed-in').length === 2 && server.requestsTo('POST', '/api/grant').length === 2);

    expect(named('session-ended')).toEqual([
      { event: 'session-ended', message: expect.stringContaining('the session has ended') as string },
    ]);
    const second = token();
    expect(second).not.toBe(first);
    expect(server.requestsTo('POST', '/api/grant')[1]?.session).toBe(second);
  });

  it('makes the new session before the old one ends: sign in, grant, then log the old one out', async () => {
    // A 10-minute session is replaced when a minute is left.
    const { clock, start, server, named, token } = await givenPersist([BACKUP_DB], { sessionLengthMs: 600_000 });
    void start();
    await clock.runUntil(() => named('knoc').length === 1);
    const first = token();
    const signedInAt = clock.now();

    await clock.runUntil(() => named('handover').length === 1);

    const second = token();
    expect(second).not.toBe(first);
    const index = (predicate: (request: (typeof server.requests)[number]) => boolean) =>
      server.requests.findIndex(predicate);
    const newLogin = index((request) => request.path === V1_LOGIN_PATH && server.requests.indexOf(request) > 0);
    const newGrant = index((request) => request.path === '/api/grant' && request.session === second);
    const oldLogout = index((request) => request.path === '/api/logout' && request.session === first);
    expect(newLogin).toBeGreaterThan(0);
    expect(newGrant).toBeGreaterThan(newLogin);
    expect(oldLogout).toBeGreaterThan(newGrant);
    expect(server.liveSessions().map((session) => session.token)).toEqual([second]);
    expect(named('handover')[0]).toMatchObject({ previousLoggedOut: true });
    // Nine minutes in (at the latest), not at the interval after.
    expect(server.sessions.get(second ?? '')?.signedInAt).toBeLessThanOrEqual(signedInAt + 540_000);
    expect(server.sessions.get(second ?? '')?.signedInAt).toBeGreaterThanOrEqual(signedInAt + 540_000 - INTERVAL_MS);
  });

  it('waits out an unreachable server with growing back-off, reporting the outage once and its end once', async () => {
    const { clock, start, server, named } = await givenPersist();
    void start();
    await clock.runUntil(() => named('knoc').length === 1);

    server.down = true;
    const waits: number[] = [];
    for (let round = 0; round < 4; round += 1) {
      clock.wake();
      waits.push(await clock.nextSleep());
    }

    // Equal jitter with random() = 0.5: three quarters of 2, 4, 8, 16 s.
    expect(waits).toEqual([1_500, 3_000, 6_000, 12_000]);
    expect(named('unreachable')).toEqual([
      { event: 'unreachable', message: expect.stringContaining('could not reach') as string, retryInSeconds: 2 },
    ]);
    server.down = false;
    clock.wake();
    expect(await clock.nextSleep()).toBe(INTERVAL_MS);
    expect(named('recovered')).toEqual([{ event: 'recovered', from: 'unreachable' }]);
  });

  it('waits as long as Retry-After asks when sign-ins are throttled', async () => {
    const { clock, start, server, named } = await givenPersist();
    const account = server.keys.get(KEY);
    if (account !== undefined)
      account.refusal = { status: 429, code: ErrorCodes.tooManyRequests, retryAfterSeconds: 120 };
    void start();

    expect(await clock.nextSleep()).toBe(120_500);
    expect(named('throttled')).toHaveLength(1);

    if (account !== undefined) delete account.refusal;
    clock.wake();
    await clock.runUntil(() => named('knoc').length === 1);
    expect(named('recovered')).toEqual([{ event: 'recovered', from: 'throttled' }]);
  });

  it('logs out (revoking every grant) and deletes the session file on SIGTERM', async () => {
    const { clock, start, server, named, controller, sessionFile, events, token } = await givenPersist();
    const done = start();
    await clock.runUntil(() => named('knoc').length === 1);
    const session = token();

    controller.abort();

    expect(await done).toBe(ExitCode.Ok);
    expect(server.requestsTo('POST', '/api/logout').map((request) => request.session)).toEqual([session]);
    expect(server.liveSessions()).toEqual([]);
    expect(existsSync(sessionFile)).toBe(false);
    expect(events.slice(-2)).toEqual([{ event: 'stopping' }, { event: 'stopped', loggedOut: true }]);
  });

  it('stops with exit 8 and keeps the session file when the logout cannot reach the server', async () => {
    const { clock, start, server, named, controller, sessionFile } = await givenPersist();
    const done = start();
    await clock.runUntil(() => named('knoc').length === 1);

    server.down = true;
    controller.abort();

    expect(await done).toBe(ExitCode.Unreachable);
    expect(existsSync(sessionFile)).toBe(true);
  });

  it('ends with exit 2 when the key is refused on signing in again (the key was revoked)', async () => {
    const { clock, start, server, named } = await givenPersist();
    const done = start();
    await clock.runUntil(() => named('knoc').length === 1);

    server.keys.delete(KEY);
    server.endAllSessions();
    clock.wake();

    await expect(done).rejects.toMatchObject({ exitCode: ExitCode.KeyRefused });
  });

  it('ends with exit 5 when a --knoc names no knoc, and logs its session out', async () => {
    const { start, server } = await givenPersist();

    await expect(start(['Mail'])).rejects.toMatchObject({ exitCode: ExitCode.KnocUnknown });
    expect(server.liveSessions()).toEqual([]);
  });

  it('reports an address change (the server moves the grants itself)', async () => {
    const { clock, start, server, named } = await givenPersist();
    void start();
    await clock.runUntil(() => named('knoc').length === 1);

    server.address = '203.0.113.5';
    clock.wake();
    await clock.nextSleep();

    expect(named('address').at(-1)).toEqual({ event: 'address', address: '203.0.113.5', previous: '198.51.100.7' });
  });

  it('keeps running while unlicensed, saying so once, and grants once licensed again', async () => {
    const { clock, start, server, named, granted } = await givenPersist();
    server.licensed = false;
    void start();
    await clock.nextSleep();
    clock.wake();
    await clock.nextSleep();

    expect(named('unlicensed')).toHaveLength(1);
    expect(server.requestsTo('POST', '/api/grant')).toEqual([]);

    server.licensed = true;
    clock.wake();
    await clock.runUntil(() => granted() === 1);
    expect(named('recovered')).toEqual([{ event: 'recovered', from: 'unlicensed' }]);
  });

  it('reports a knoc taken away from the user once, and keeps running', async () => {
    const { clock, start, server, named } = await givenPersist([BACKUP_DB, { id: 'k2', name: 'Wiki' }]);
    void start(['Backup DB', 'Wiki']);
    await clock.runUntil(() => named('knoc').length === 2);

    server.knocs = [BACKUP_DB];
    clock.wake();
    await clock.nextSleep();
    clock.wake();
    await clock.nextSleep();

    expect(named('knoc').slice(2)).toEqual([
      {
        event: 'knoc',
        knoc: expect.objectContaining({
          id: 'k2',
          name: 'Wiki',
          ok: false,
          error: expect.stringContaining('no longer available') as string,
        }) as unknown,
      },
    ]);
  });

  it('logs out the session an earlier run left, once its own grants are in place', async () => {
    const { clock, start, server, named, sessionFile } = await givenPersist();
    const earlier = server.url;
    const signIn = await new PosternApi({ server: earlier }).signIn(KEY);
    saveSession(sessionFile, {
      version: 1,
      server: earlier,
      cookie: signIn.cookie,
      userName: 'backup-bot',
      signedInAt: new Date(clock.now()).toISOString(),
      ends: signIn.info.Ends,
      knocs: ['k1'],
    });
    void start();

    await clock.runUntil(() => named('knoc').length === 1);

    expect(server.requestsTo('POST', '/api/logout').map((request) => request.session)).toEqual([
      signIn.cookie.split('=')[1],
    ]);
    expect(server.liveSessions()).toHaveLength(1);
  });
});

describe('the persist timing rules', () => {
  it.each([
    [8 * 3600_000, 48 * 60_000],
    [3600_000, 6 * 60_000],
    [10 * 60_000, 60_000],
    [5 * 60_000, 60_000],
    [60_000, 30_000],
  ])('replaces a session of %i ms when %i ms are left', (length, margin) => {
    expect(handoverMarginMs(length)).toBe(margin);
  });

  it('backs off from 2 s, doubling up to a minute, with half of each wait random', () => {
    for (const [failures, base] of [
      [1, FIRST_BACKOFF_MS],
      [2, 4_000],
      [5, 32_000],
      [6, LONGEST_BACKOFF_MS],
      [30, LONGEST_BACKOFF_MS],
    ] as const) {
      expect(backoffMs(failures, () => 0)).toBe(base / 2);
      expect(backoffMs(failures, () => 1)).toBe(base);
    }
  });
});
