import { beforeEach, describe, expect, it } from 'vitest';
import { AuditActions, ErrorCodes, GrantStatus, V1_LOGIN_PATH, type UserStatus } from '@postern/protocol';
import { recentAudit } from '../audit/audit.js';
import type { TestApp } from '../test-support/test-app.js';
import { useTestApp } from '../test-support/use-test-app.js';
import { givenUser } from '../test-support/factories.js';
import { givenLicence, TEST_LICENCE_KEYS } from '../test-support/licence.js';
import { basicAuth, givenApiKey } from '../test-support/v1-rows.js';
import { ALICE_ADDRESS, givenIpsetKnoc, useGrantEngineWorld } from '../test-support/grant-engine-world.js';
import type { FakeAgent } from '../test-support/fake-agent.js';
import type { AppContext } from '../app-context.js';
import type { NewUser } from '../users/users.repo.js';

const MINUTE = 60_000;
/** Where the backup server signs in from (RFC 5737). */
const MACHINE = '198.51.100.20';

/** A user of AuthType apikey (no password) and a key scoped user.auth:{the user}. */
async function givenMachine(
  ctx: AppContext,
  user: Partial<NewUser> = {},
  key: Parameters<typeof givenApiKey>[2] = {},
): Promise<{ id: string; userName: string; key: string; keyName: string }> {
  const created = await givenUser(ctx, { authType: 'apikey', passwordHash: null, ...user });
  const issued = await givenApiKey(ctx, [`user.auth:${created.id}`], key);
  return { id: created.id, userName: created.userName, key: issued.plaintext, keyName: issued.name };
}

/** The session cookie a sign-in set (name=value). */
function sessionCookie(response: { headers: Record<string, unknown> }): string {
  const cookies = ([] as string[]).concat((response.headers['set-cookie'] as string | string[] | undefined) ?? []);
  const cookie = cookies.find((value) => value.includes('postern_session='));
  if (cookie === undefined) throw new Error(`no session cookie in ${JSON.stringify(cookies)}`);
  return cookie.split(';')[0] ?? '';
}

/** How many sign-ins the metrics counted with these labels. */
async function signInsCounted(ctx: AppContext, result: string): Promise<number> {
  const metric = ctx.metrics.registry.getSingleMetric('postern_auth_attempts_total');
  const values = (await metric?.get())?.values ?? [];
  return values.find((value) => value.labels.method === 'apikey' && value.labels.result === result)?.value ?? 0;
}

describe('POST /api/v1/login, the machine sign-in (sqlite)', () => {
  const t = useTestApp('sqlite', { config: { licencePublicKeys: TEST_LICENCE_KEYS } });
  beforeEach(async () => {
    await givenLicence(t.ctx);
  });

  const keySignIn = (authorization: string | undefined, from = MACHINE, url = V1_LOGIN_PATH) =>
    t.app.inject({
      method: 'POST',
      url,
      remoteAddress: from,
      headers: authorization === undefined ? {} : { authorization },
    });
  const statusOf = (cookie: string, from = MACHINE) =>
    t.app.inject({ method: 'GET', url: '/api/status', remoteAddress: from, headers: { cookie } });

  it('gives an API-key user a normal session for its Duration, with the cookie a person gets', async () => {
    const machine = await givenMachine(t.ctx, { name: 'Backup server', durationMinutes: 90 });

    const response = await keySignIn(`Bearer ${machine.key}`);

    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({
      data: {
        Name: 'Backup server',
        UserName: machine.userName,
        AuthType: 'apikey',
        Ends: new Date(t.clock.now() + 90 * MINUTE).toISOString(),
        KioskMode: false,
        NewUserDashboard: expect.any(Boolean) as boolean,
      },
    });
    const status = await statusOf(sessionCookie(response));
    expect(status.statusCode, status.body).toBe(200);
    expect(status.json<{ data: UserStatus }>().data).toMatchObject({
      UserName: machine.userName,
      CurrentAddress: MACHINE,
      Ends: new Date(t.clock.now() + 90 * MINUTE).toISOString(),
    });
  });

  it('takes the key as HTTP Basic with the user name apiuser too', async () => {
    const machine = await givenMachine(t.ctx);
    const response = await keySignIn(basicAuth('apiuser', machine.key));
    expect(response.statusCode, response.body).toBe(200);
  });

  it('audits the sign-in with the key’s name, records the key’s use and counts it in the metrics', async () => {
    const machine = await givenMachine(t.ctx, {}, { name: 'nightly backup' });
    await keySignIn(`Bearer ${machine.key}`);

    const [entry] = await recentAudit(t.ctx.db, 1);
    expect(entry?.Entry).toEqual({
      [AuditActions.UserLogin]: {
        UserName: machine.userName,
        IpAddress: MACHINE,
        Description: 'API key nightly backup',
      },
    });
    const key = await t.ctx.db.selectFrom('apiKeys').select('lastUsedAt').executeTakeFirstOrThrow();
    expect(Number(key.lastUsedAt)).toBe(t.clock.now());
    expect(await signInsCounted(t.ctx, 'success')).toBe(1);
  });

  it('gives one answer to no, malformed, unknown, deleted and out-of-scope keys, and audits each', async () => {
    const machine = await givenMachine(t.ctx);
    const deleted = await givenMachine(t.ctx);
    await t.ctx.db.deleteFrom('apiKeys').where('name', '=', deleted.keyName).execute();
    const sessionsKey = await givenApiKey(t.ctx, ['user.sessions']);
    const answers = await Promise.all(
      [
        undefined,
        'Bearer',
        'Bearer not-a-key',
        `Bearer ${machine.key.slice(0, -2)}xx`,
        `Bearer ${deleted.key}`,
        `Bearer ${sessionsKey.plaintext}`,
        basicAuth('someone', machine.key),
        `Token ${machine.key}`,
      ].map((authorization) => keySignIn(authorization)),
    );

    for (const answer of answers) {
      expect(answer.statusCode, answer.body).toBe(401);
      expect(answer.json()).toEqual({ Err: ErrorCodes.unauthorised });
      expect(answer.headers['set-cookie']).toBeUndefined();
    }
    const audited = await recentAudit(t.ctx.db, answers.length);
    expect(audited.map((entry) => Object.keys(entry.Entry)[0])).toEqual(
      answers.map(() => AuditActions.UserLoginFailed),
    );
    expect(await signInsCounted(t.ctx, 'failure')).toBe(answers.length);
  });

  it('never reads a key from the URL', async () => {
    const machine = await givenMachine(t.ctx);
    const response = await keySignIn(undefined, MACHINE, `${V1_LOGIN_PATH}?key=${machine.key}`);
    expect(response.statusCode).toBe(401);
  });

  it('tells the holder of an expired key that it expired', async () => {
    const machine = await givenMachine(t.ctx, {}, { expiresAt: t.clock.now() + MINUTE });
    t.clock.advance(MINUTE);
    const response = await keySignIn(`Bearer ${machine.key}`);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ Err: ErrorCodes.apiKeyExpired });
  });

  it('refuses a key from outside its AllowedFrom with 403, and takes it from inside', async () => {
    const machine = await givenMachine(t.ctx, {}, { allowedFrom: [{ Prefix: '198.51.100.0/24', Note: 'backup net' }] });
    const outside = await keySignIn(`Bearer ${machine.key}`, '203.0.113.9');
    expect(outside.statusCode).toBe(403);
    expect(outside.json()).toEqual({ Err: ErrorCodes.apiKeyAddressNotAllowed });
    expect((await keySignIn(`Bearer ${machine.key}`)).statusCode).toBe(200);
  });

  it('signs no person in with a key: a user.auth key of a local user is refused and starts no session', async () => {
    const person = await givenUser(t.ctx, { authType: 'local' });
    const key = await givenApiKey(t.ctx, [`user.auth:${person.id}`]);
    const response = await keySignIn(`Bearer ${key.plaintext}`);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ Err: ErrorCodes.apiKeySignInNotAllowed });
    const sessions = await t.ctx.db.selectFrom('userSessions').select('id').execute();
    expect(sessions).toEqual([]);
  });

  it.each([
    ['disabled', { disabled: true }],
    ['past its ValidUntil', { validUntil: 1 }],
  ])('refuses an account that is %s', async (_, user) => {
    const machine = await givenMachine(t.ctx, user);
    const response = await keySignIn(`Bearer ${machine.key}`);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ Err: ErrorCodes.accountDisabled });
  });

  it('keeps the user within its SessionLimit by ending its oldest session', async () => {
    const machine = await givenMachine(t.ctx, { sessionLimit: 1 });
    const first = sessionCookie(await keySignIn(`Bearer ${machine.key}`));
    t.clock.advance(MINUTE);
    const second = sessionCookie(await keySignIn(`Bearer ${machine.key}`));

    expect((await statusOf(first)).statusCode).toBe(401);
    expect((await statusOf(second)).statusCode).toBe(200);
  });

  it('throttles an address that keeps sending wrong keys, even its good key, and no other address', async () => {
    const machine = await givenMachine(t.ctx);
    let last = await keySignIn('Bearer wrong');
    for (let attempt = 1; attempt < 20; attempt += 1) last = await keySignIn('Bearer wrong');
    expect(last.statusCode).toBe(401);

    const blocked = await keySignIn(`Bearer ${machine.key}`);
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(await signInsCounted(t.ctx, 'banned')).toBe(1);
    expect((await keySignIn(`Bearer ${machine.key}`, '198.51.100.21')).statusCode).toBe(200);
  });

  it('signs in without a licence, but the status says so and a grant is refused (as for a person)', async () => {
    // No licence at all, as on an installation that never had one.
    await t.ctx.db.deleteFrom('settings').where('key', '=', 'License').execute();
    const machine = await givenMachine(t.ctx);
    const response = await keySignIn(`Bearer ${machine.key}`);
    expect(response.statusCode, response.body).toBe(200);
    const cookie = sessionCookie(response);
    const status = await t.app.inject({ method: 'GET', url: '/api/status', headers: { cookie } });
    expect(status.json<{ data: UserStatus }>().data.Licensed).toBe(false);
    const granted = await t.app.inject({
      method: 'POST',
      url: '/api/grant',
      headers: { cookie },
      payload: { ACLID: '0190a0b0-0000-7000-8000-000000000000', IPs: [] },
    });
    expect(granted.statusCode).toBe(403);
    expect(granted.json()).toEqual({ Err: ErrorCodes.licenceRequired });
  });
});

describe('grants of a machine signed in with a key (sqlite)', () => {
  const world = useGrantEngineWorld('sqlite');
  const { status, aclOf, grant, settle } = world;
  let t: TestApp, agent: FakeAgent, agentId: string, userId: string;
  beforeEach(async () => {
    ({ t, agent, agentId, userId } = world);
    // alice is a machine here: an API-key user without a password.
    await t.ctx.db
      .updateTable('users')
      .set({ authType: 'apikey', passwordHash: null })
      .where('id', '=', userId)
      .execute();
  });

  const keySignIn = async (key: string) => {
    const response = await t.app.inject({
      method: 'POST',
      url: V1_LOGIN_PATH,
      remoteAddress: ALICE_ADDRESS,
      headers: { authorization: `Bearer ${key}` },
    });
    expect(response.statusCode, response.body).toBe(200);
    return { cookie: sessionCookie(response), address: ALICE_ADDRESS };
  };

  it('opens knocs without ClickToGrant at the first status call, and ClickToGrant knocs on request', async () => {
    const automatic = await givenIpsetKnoc(t.ctx, agentId, userId, { clickToGrant: false });
    const onRequest = await givenIpsetKnoc(t.ctx, agentId, userId, { clickToGrant: true });
    const key = await givenApiKey(t.ctx, [`user.auth:${userId}`]);
    await agent.connect();

    const machine = await keySignIn(key.plaintext);
    await status(machine);
    await settle();
    expect((await aclOf(machine, automatic)).Status).toBe(GrantStatus.Granted);
    expect((await aclOf(machine, onRequest)).Status).toBe(GrantStatus.Created);

    const response = await grant(machine, onRequest);
    expect(response.statusCode, response.body).toBe(200);
    await settle();
    const granted = await aclOf(machine, onRequest);
    expect(granted.Status).toBe(GrantStatus.Granted);
    expect(Date.parse(granted.ExpiredAfter ?? '')).toBe(Date.parse((await status(machine)).Ends));
    expect(agent.applies().flatMap((apply) => apply.add.map((entry) => entry.aclId))).toEqual(
      expect.arrayContaining([automatic, onRequest]),
    );
  });

  it('ends its grants when the key’s session is logged out', async () => {
    const onRequest = await givenIpsetKnoc(t.ctx, agentId, userId);
    const key = await givenApiKey(t.ctx, [`user.auth:${userId}`]);
    await agent.connect();
    const machine = await keySignIn(key.plaintext);
    await grant(machine, onRequest);
    await settle();

    const logout = await t.app.inject({
      method: 'POST',
      url: '/api/logout',
      remoteAddress: ALICE_ADDRESS,
      headers: { cookie: machine.cookie },
    });
    expect(logout.statusCode).toBe(200);
    await agent.waitFor(
      () => agent.applies().some((apply) => apply.remove.some((entry) => entry.aclId === onRequest)),
      'the remove',
    );
  });

  it('refuses a revoked key at the next sign-in with the answer an unknown key gets', async () => {
    const key = await givenApiKey(t.ctx, [`user.auth:${userId}`]);
    await keySignIn(key.plaintext);
    await t.ctx.db.deleteFrom('apiKeys').where('id', '=', key.id).execute();
    const response = await t.app.inject({
      method: 'POST',
      url: V1_LOGIN_PATH,
      remoteAddress: ALICE_ADDRESS,
      headers: { authorization: `Bearer ${key.plaintext}` },
    });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ Err: ErrorCodes.unauthorised });
  });
});
