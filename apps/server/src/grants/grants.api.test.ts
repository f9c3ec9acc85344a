import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditActions, ErrorCodes, GrantStatus, type AclEntry, type UserStatus } from '@postern/protocol';
import { createTestApp, testStoreKinds, type TestApp } from '../test-support/test-app.js';
import { givenAdmin, givenUser } from '../test-support/factories.js';
import { givenAgent } from '../test-support/agent-factories.js';
import { givenLicence, TEST_LICENCE_KEYS } from '../test-support/licence.js';
import { FakeAgent } from '../test-support/fake-agent.js';
import { signInAdmin, signInUser } from '../test-support/http.js';
import { recentAudit } from '../audit/audit.js';
import { uuidv7 } from '../lib/ids.js';
import { givenBackend, givenEnforcedKnoc } from '../test-support/knoc-factories.js';
import { sweepGrantsOnce } from './grant-sweeper.js';
import type { AppContext } from '../app-context.js';
import { ipAttestor } from '../ip-discovery/attestation.js';

/** Where alice's browser is, unless a test says otherwise (RFC 5737: loopback is never granted). */
const ALICE_ADDRESS = '192.0.2.1';

interface KnocOptions {
  clickToGrant?: boolean;
  cgnatOpen?: boolean;
  maximumGrantDuration?: number;
  ipExclusions?: {
    RestrictionType: 'none' | 'RFC1918' | 'allowList' | 'denyList';
    RfcType: 'allow' | 'deny';
    Ranges: [];
  };
  grantType?: { Type: 'userIp' | 'specifiedIps'; Ips: { Ip: string }[] };
  /** Give the knoc to the user directly (default) or not at all (a group will). */
  direct?: boolean;
}

/** An ipset knoc on the agent, given to the user directly unless `direct` is false. */
async function givenIpsetKnoc(ctx: AppContext, agentId: string, userId: string, options: KnocOptions = {}) {
  const backend = await givenBackend(ctx, { type: 'ipset', agentId });
  const knoc = await givenEnforcedKnoc(ctx, {
    backendId: backend.id,
    type: 'ipset',
    aclConfig: { V4SetName: 'postern4', V6SetName: 'postern6' },
    options: {
      ClickToGrant: options.clickToGrant ?? true,
      CGNATOpen: options.cgnatOpen ?? false,
      MaximumGrantDuration: options.maximumGrantDuration ?? 0,
      ...(options.ipExclusions === undefined ? {} : { IpExclusions: options.ipExclusions }),
      ...(options.grantType === undefined ? {} : { GrantType: options.grantType }),
    },
  });
  // A known UriToken, so the auto-browse test can name the URL it expects.
  await ctx.db.updateTable('knocs').set({ uriToken: 'uri-token-1' }).where('id', '=', knoc.id).execute();
  if (options.direct !== false) await ctx.db.insertInto('userAcls').values({ userId, aclId: knoc.id }).execute();
  return knoc.id;
}

describe.each(testStoreKinds())('grant engine (%s)', (kind) => {
  let t: TestApp;
  let agent: FakeAgent;
  let agentId: string;
  let userId: string;
  let password: string;
  let baseUrl: string;

  beforeEach(async () => {
    t = await createTestApp(kind, { config: { licencePublicKeys: TEST_LICENCE_KEYS } });
    await givenLicence(t.ctx);
    const user = await givenUser(t.ctx, { userName: 'alice' });
    userId = user.id;
    password = user.password;
    const created = await givenAgent(t.ctx, { name: 'edge' });
    agentId = created.id;
    baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
    agent = new FakeAgent(baseUrl, created.token);
  });
  afterEach(async () => {
    await agent.disconnect();
    await t.close();
  });

  const signIn = (address = ALICE_ADDRESS) =>
    signInUser(t.app, 'alice', password).then((cookie) => ({ cookie, address }));
  const status = async (who: { cookie: string; address: string }) => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/status',
      headers: { cookie: who.cookie },
      remoteAddress: who.address,
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ data: UserStatus }>().data;
  };
  const aclOf = async (who: { cookie: string; address: string }, aclId: string) => {
    const acl = (await status(who)).ACLs.find((entry) => entry.ACLID === aclId);
    if (acl === undefined) throw new Error('ACL not in status');
    return acl;
  };
  const grant = (who: { cookie: string; address: string }, aclId: string, IPs: object[] = []) =>
    t.app.inject({
      method: 'POST',
      url: '/api/grant',
      headers: { cookie: who.cookie },
      remoteAddress: who.address,
      payload: { ACLID: aclId, IPs },
    });
  const revoke = (who: { cookie: string; address: string }, aclId: string) =>
    t.app.inject({
      method: 'DELETE',
      url: `/api/sessions/current/granted-acls/${aclId}`,
      headers: { cookie: who.cookie },
      remoteAddress: who.address,
    });
  const settle = async () => {
    await t.hub.idle();
    await new Promise((resolve) => setTimeout(resolve, 30));
    await t.hub.idle();
  };

  it('sends the agent its knocs on hello, and a click becomes an add that the agent confirms', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId);
    await agent.connect();
    const [state] = agent.states();
    expect(state?.knocs).toEqual([
      expect.objectContaining({ aclId, backendType: 'ipset', acl: { V4SetName: 'postern4', V6SetName: 'postern6' } }),
    ]);
    expect(state?.entries).toEqual([]);

    const alice = await signIn();
    expect((await aclOf(alice, aclId)).Status).toBe(GrantStatus.Created);
    const response = await grant(alice, aclId);
    expect(response.statusCode, response.body).toBe(200);
    await agent.waitFor(() => agent.applies().length === 1, 'the add');
    const [apply] = agent.applies();
    expect(apply?.add).toEqual([
      { aclId, ip: ALICE_ADDRESS, ttlSeconds: expect.any(Number) as number, userName: 'alice' },
    ]);
    expect(apply?.generation).toBeGreaterThan(state?.generation ?? Infinity);
    await settle();

    const granted = await aclOf(alice, aclId);
    expect(granted.Status).toBe(GrantStatus.Granted);
    // No MaximumGrantDuration: the grant lasts as long as the session.
    expect(Date.parse(granted.ExpiredAfter ?? '')).toBe(Date.parse((await status(alice)).Ends));
    expect((await recentAudit(t.ctx.db, 5)).map((entry) => Object.keys(entry.Entry)[0])).toContain(
      AuditActions.ClickToGrant,
    );
  });

  it('answers a grant or revoke only once its message has left for the agent', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId);
    await agent.connect();
    const alice = await signIn();
    // Hold each delivery a little after the send: the reply must wait for it, not race it.
    const deliver = t.hub.deliverEntryChanges.bind(t.hub);
    const delivered: string[] = [];
    t.hub.deliverEntryChanges = async (keys) => {
      await deliver(keys);
      await new Promise((resolve) => setTimeout(resolve, 20));
      delivered.push(keys.map((key) => `${key.aclId} ${key.ip}`).join(','));
    };
    expect((await grant(alice, aclId)).statusCode).toBe(200);
    expect(delivered).toEqual([`${aclId} ${ALICE_ADDRESS}`]);
    await agent.waitFor(() => agent.applies().length === 1, 'the add');
    expect((await revoke(alice, aclId)).statusCode).toBe(200);
    expect(delivered).toHaveLength(2);
    await agent.waitFor(() => agent.applies().length === 2, 'the remove');
  });

  it('revokes on click: the agent removes the entry and the status settles on Revoked', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId);
    await agent.connect();
    const alice = await signIn();
    await grant(alice, aclId);
    await agent.waitFor(() => agent.applies().length === 1);
    await settle();

    const response = await revoke(alice, aclId);
    expect(response.statusCode, response.body).toBe(200);
    await agent.waitFor(() => agent.applies().length === 2, 'the remove');
    expect(agent.applies()[1]).toMatchObject({ add: [], remove: [{ aclId, ip: ALICE_ADDRESS }] });
    await settle();
    expect((await aclOf(alice, aclId)).Status).toBe(GrantStatus.Revoked);
  });

  it('keeps a shared address until the last session holding it ends', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId);
    await agent.connect();
    const first = await signIn('198.51.100.7');
    const second = await signIn('198.51.100.7');
    await grant(first, aclId);
    await grant(second, aclId);
    await agent.waitFor(() => agent.applies().length >= 1);
    await settle();
    const addsSoFar = agent.applies().length;

    await revoke(first, aclId);
    await settle();
    // The office address is still held by the second session: nothing leaves the device.
    expect(
      agent
        .applies()
        .slice(addsSoFar)
        .flatMap((apply) => apply.remove),
    ).toEqual([]);
    expect((await aclOf(first, aclId)).Status).toBe(GrantStatus.Revoked);
    expect((await aclOf(second, aclId)).Status).toBe(GrantStatus.Granted);

    const logout = await t.app.inject({
      method: 'POST',
      url: '/api/logout',
      headers: { cookie: second.cookie },
      remoteAddress: second.address,
    });
    expect(logout.statusCode, logout.body).toBe(200);
    await agent.waitFor(() => agent.applies().some((apply) => apply.remove.length > 0), 'the remove after logout');
    expect(agent.applies().flatMap((apply) => apply.remove)).toEqual([{ aclId, ip: '198.51.100.7' }]);
  });

  it('moves the grant when the address changes, with the same expiry', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId, { maximumGrantDuration: 3600 });
    await agent.connect();
    const alice = await signIn('203.0.113.5');
    await grant(alice, aclId);
    await agent.waitFor(() => agent.applies().length === 1);
    await settle();
    const before = await aclOf(alice, aclId);

    t.clock.advance(60_000);
    const moved = await aclOf({ ...alice, address: '203.0.113.99' }, aclId);
    await agent.waitFor(() => agent.applies().length === 2, 'the move');
    expect(agent.applies()[1]).toMatchObject({
      remove: [{ aclId, ip: '203.0.113.5' }],
      add: [expect.objectContaining({ aclId, ip: '203.0.113.99' })],
    });
    expect(moved.ExpiredAfter).toBe(before.ExpiredAfter);
  });

  it('caps a grant at MaximumGrantDuration and ends it at expiry through the sweeper', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId, { maximumGrantDuration: 300 });
    await agent.connect();
    const alice = await signIn();
    const started = t.clock.now();
    await grant(alice, aclId);
    await agent.waitFor(() => agent.applies().length === 1);
    expect(agent.applies()[0]?.add[0]?.ttlSeconds).toBe(300);
    await settle();
    expect(Date.parse((await aclOf(alice, aclId)).ExpiredAfter ?? '')).toBe(started + 300_000);

    t.clock.advance(300_000);
    // The agent kept sending heartbeats while the (manual) clock moved on.
    await t.ctx.db.updateTable('agents').set({ lastSeen: t.clock.now() }).execute();
    await sweepGrantsOnce(t.ctx);
    await agent.waitFor(() => agent.applies().length === 2, 'the expiry remove');
    expect(agent.applies()[1]?.remove).toEqual([{ aclId, ip: ALICE_ADDRESS }]);
    await settle();
    expect((await aclOf(alice, aclId)).Status).toBe(GrantStatus.Revoked);
  });

  it('shows AgentOffline and refuses a click while the agent is away', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId);
    const alice = await signIn();
    expect((await aclOf(alice, aclId)).Status).toBe(GrantStatus.AgentOffline);
    const response = await grant(alice, aclId);
    expect(response.statusCode).toBe(409);
    expect(response.json()).toEqual({ Err: ErrorCodes.agentOffline });
  });

  it('reports a device failure as GrantError with the message', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId);
    agent.decide = (entry) => ({
      ...entry,
      ok: false,
      error: 'ipset v7.17: The set with the given name does not exist',
    });
    await agent.connect();
    const alice = await signIn();
    await grant(alice, aclId);
    await agent.waitFor(() => agent.applies().length === 1);
    await settle();
    const acl = await aclOf(alice, aclId);
    expect(acl.Status).toBe(GrantStatus.GrantError);
    expect(acl.Error).toContain('does not exist');
  });

  it('disables a knoc for an address its IpExclusions refuse', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId, {
      ipExclusions: { RestrictionType: 'RFC1918', RfcType: 'allow', Ranges: [] },
    });
    await agent.connect();
    const outside = await signIn('198.51.100.20');
    expect((await aclOf(outside, aclId)).DisableForUser).toBe(true);
    const response = await grant(outside, aclId);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ Err: ErrorCodes.aclDisabledForUser });
    const inside = await signIn('10.1.2.3');
    expect((await aclOf(inside, aclId)).DisableForUser).toBe(false);
  });

  it('grants knocs without ClickToGrant when the session starts', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId, { clickToGrant: false });
    await agent.connect();
    const alice = await signIn();
    await status(alice);
    await agent.waitFor(() => agent.applies().length === 1, 'the automatic add');
    expect(agent.applies()[0]?.add.map((entry) => entry.aclId)).toEqual([aclId]);
  });

  it('opens CGNATOpen knocs for attested discovered addresses too (the rules: cgnat.api.test.ts)', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId, { cgnatOpen: true });
    await agent.connect();
    const alice = await signIn('100.64.0.9');
    const attested = (IP: string, Port: number) => ({
      IP,
      Port,
      Attestation: ipAttestor(t.ctx.secrets).issue({ ip: IP, port: Port }, t.clock.now()),
    });
    const granted = await grant(alice, aclId, [attested('192.0.2.44', 443)]);
    expect(granted.statusCode, granted.body).toBe(200);
    await agent.waitFor(() => agent.applies().length >= 1);
    const added = () =>
      agent
        .applies()
        .flatMap((apply) => apply.add.map((entry) => entry.ip))
        .sort();
    expect(added()).toEqual(['100.64.0.9', '192.0.2.44']);

    const logged = await t.app.inject({
      method: 'POST',
      url: '/api/log_ips',
      headers: { cookie: alice.cookie },
      remoteAddress: alice.address,
      payload: { IPs: [attested('2001:db8::1', 8000)] },
    });
    expect(logged.statusCode, logged.body).toBe(200);
    await agent.waitFor(() => added().includes('2001:db8::1'), 'the discovered address');
  });

  it('resends the whole state when an agent reconnects, at a newer generation', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId);
    await agent.connect();
    const alice = await signIn();
    await grant(alice, aclId);
    await agent.waitFor(() => agent.applies().length === 1);
    await settle();
    const lastGeneration = agent.applies()[0]?.generation ?? Infinity;
    await agent.disconnect();

    await agent.connect();
    const state = agent.states().at(-1);
    expect(state?.generation).toBeGreaterThan(lastGeneration);
    expect(state?.entries.map((entry) => entry.ip)).toEqual([ALICE_ADDRESS]);
  });

  it('numbers messages in sending order, never above what the store has reserved', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId);
    await agent.connect();
    const alice = await signIn();
    for (let round = 1; round <= 3; round += 1) {
      await grant(alice, aclId);
      await agent.waitFor(() => agent.applies().length === 2 * round - 1);
      await revoke(alice, aclId);
      await agent.waitFor(() => agent.applies().length === 2 * round);
    }
    const sent = [...agent.states(), ...agent.applies()].map((message) => message.generation);
    expect(sent).toEqual([...sent].sort((a, b) => a - b));
    expect(new Set(sent).size).toBe(sent.length);
    const stored = await t.ctx.db
      .selectFrom('agents')
      .select('generation')
      .where('id', '=', agentId)
      .executeTakeFirstOrThrow();
    // A replica or a later connection starts above this, so above everything sent here.
    expect(Number(stored.generation)).toBeGreaterThanOrEqual(Math.max(...sent));
  });

  it('sends each knoc with its backend’s fields and secrets opened for the driver', async () => {
    const backend = await givenBackend(t.ctx, {
      type: 'haproxy',
      agentId,
      config: { Protocol: 'unix', Address: '/run/haproxy/admin.sock' },
    });
    const knoc = await givenEnforcedKnoc(t.ctx, { backendId: backend.id, type: 'haproxy', aclConfig: { ID: '7' } });
    await agent.connect();
    expect(agent.states()[0]?.knocs).toEqual([
      {
        aclId: knoc.id,
        name: knoc.description,
        url: '',
        backendId: backend.id,
        backendType: 'haproxy',
        backend: { Protocol: 'unix', Address: '/run/haproxy/admin.sock' },
        acl: { ID: '7' },
      },
    ]);
  });

  it('moves its generation past the agent’s when the agent has seen a later one (a restored store)', async () => {
    await agent.connect(undefined, 5_000);
    expect(agent.states()[0]?.generation).toBeGreaterThan(5_000);
  });

  it('refuses an agent connection with an unknown token', async () => {
    const stranger = new FakeAgent(baseUrl, 'x'.repeat(43));
    await expect(stranger.connect()).rejects.toThrow(/401/);
  });

  it('records an audited break-glass grant from an admin and sends it to the agent', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId);
    await agent.connect();
    const admin = await givenAdmin(t.ctx, { userName: 'ops' });
    const cookie = await signInAdmin(t.app, 'ops', admin.password);
    const response = await t.app.inject({
      method: 'POST',
      url: `/api/admin/acls/${aclId}/grants`,
      headers: { cookie },
      payload: { IP: '192.0.2.200', Minutes: 30, Reason: 'vendor support call' },
    });
    expect(response.statusCode, response.body).toBe(200);
    await agent.waitFor(() => agent.applies().length === 1);
    expect(agent.applies()[0]?.add).toEqual([{ aclId, ip: '192.0.2.200', ttlSeconds: 1800, userName: 'ops' }]);
    const [entry] = await recentAudit(t.ctx.db, 1);
    expect(entry?.Entry[AuditActions.AdminBreakGlassGrant]).toMatchObject({
      AdminName: 'ops',
      IpAddress: '192.0.2.200',
      Description: 'vendor support call',
    });
  });

  it('closes access at once when an admin takes the user out of the group that gave the knoc', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId, { direct: false });
    await agent.connect();
    const admin = await givenAdmin(t.ctx, { userName: 'ops' });
    const adminCookie = await signInAdmin(t.app, 'ops', admin.password);
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/admin/groups',
      headers: { cookie: adminCookie },
      payload: { Name: 'admins-of-ssh', Type: 'local', ACLIDs: [aclId], UserIDs: [userId] },
    });
    expect(created.statusCode, created.body).toBe(200);
    const groupId = created.json<{ data: { ID: string } }>().data.ID;
    const alice = await signIn();
    await grant(alice, aclId);
    await agent.waitFor(() => agent.applies().length === 1);
    await settle();

    const updated = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/groups/${groupId}`,
      headers: { cookie: adminCookie },
      payload: { ID: groupId, Name: 'admins-of-ssh', Type: 'local', ACLIDs: [aclId], UserIDs: [] },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    await agent.waitFor(() => agent.applies().length === 2, 'the remove');
    expect(agent.applies()[1]?.remove).toEqual([{ aclId, ip: ALICE_ADDRESS }]);
    expect((await status(alice)).ACLs).toEqual([]);
  });

  it('grants a knoc’s fixed addresses, whoever clicks and from wherever', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId, {
      grantType: { Type: 'specifiedIps', Ips: [{ Ip: '192.0.2.10' }, { Ip: '192.0.2.11' }] },
    });
    await agent.connect();
    const alice = await signIn('198.51.100.3');
    expect((await aclOf(alice, aclId)).GrantTypeFixedIps).toBe(true);
    await grant(alice, aclId);
    await agent.waitFor(() => agent.applies().length === 1);
    expect(
      agent
        .applies()[0]
        ?.add.map((entry) => entry.ip)
        .sort(),
    ).toEqual(['192.0.2.10', '192.0.2.11']);
    // A fixed grant does not follow the user's address.
    await aclOf({ ...alice, address: '198.51.100.4' }, aclId);
    await settle();
    expect(agent.applies()).toHaveLength(1);
  });

  it('names the one auto-browse knoc with its knoctoken, and none when two ask for it', async () => {
    const first = await givenIpsetKnoc(t.ctx, agentId, userId);
    await t.ctx.db
      .updateTable('knocs')
      .set({ autoBrowseUsers: true, url: 'https://intranet.example/start?a=1' })
      .where('id', '=', first)
      .execute();
    const alice = await signIn();
    expect((await status(alice)).AutoBrowseToURI).toBe('https://intranet.example/start?a=1&knoctoken=uri-token-1');
    const second = await givenIpsetKnoc(t.ctx, agentId, userId);
    await t.ctx.db
      .updateTable('knocs')
      .set({ autoBrowseUsers: true, url: 'https://wiki.example/' })
      .where('id', '=', second)
      .execute();
    expect((await status(alice)).AutoBrowseToURI).toBeNull();
  });

  it('revokes a deleted user’s grants', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId);
    await agent.connect();
    const alice = await signIn('198.51.100.70');
    await grant(alice, aclId);
    await agent.waitFor(() => agent.applies().length === 1);
    const admin = await givenAdmin(t.ctx, { userName: 'ops' });
    const cookie = await signInAdmin(t.app, 'ops', admin.password);
    const deleted = await t.app.inject({ method: 'DELETE', url: `/api/admin/users/${userId}`, headers: { cookie } });
    expect(deleted.statusCode, deleted.body).toBe(200);
    await agent.waitFor(() => agent.applies().length === 2, 'the remove');
    expect(agent.applies()[1]?.remove).toEqual([{ aclId, ip: '198.51.100.70' }]);
  });

  it('answers grant calls only for the knocs the user has', async () => {
    await agent.connect();
    const alice = await signIn();
    const response = await grant(alice, uuidv7());
    expect(response.statusCode).toBe(404);
    expect(response.json<{ Err: string }>().Err).toBe(ErrorCodes.aclNotAvailable);
    const acls: AclEntry[] = (await status(alice)).ACLs;
    expect(acls).toEqual([]);
  });
});
