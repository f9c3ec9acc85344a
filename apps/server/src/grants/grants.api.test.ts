import { beforeEach, describe, expect, it } from 'vitest';
import { AuditActions, ErrorCodes, GrantStatus, type AclEntry } from '@postern/protocol';
import { type TestApp } from '../test-support/test-app.js';
import { bothStores } from '../test-support/store-kinds.js';
import { givenAdmin } from '../test-support/factories.js';
import type { FakeAgent } from '../test-support/fake-agent.js';
import { signInAdmin } from '../test-support/http.js';
import { ALICE_ADDRESS, givenIpsetKnoc, useGrantEngineWorld } from '../test-support/grant-engine-world.js';
import { recentAudit } from '../audit/audit.js';
import { uuidv7 } from '../lib/ids.js';
import { sweepGrantsOnce } from './grant-sweeper.js';
import { givenBackend, givenEnforcedKnoc } from '../test-support/knoc-factories.js';

// A grant's life: clicked, sent, confirmed, moved, expired, revoked, and ended by an admin. What the
// knoc's options change: grants-knoc-options.api.test.ts; the agent connection:
// grants-agent-connection.api.test.ts.
describe.each(bothStores())('grant engine (%s)', (kind) => {
  const world = useGrantEngineWorld(kind);
  const { signIn, status, aclOf, grant, revoke, settle } = world;
  let t: TestApp, agent: FakeAgent, agentId: string, userId: string;
  beforeEach(() => {
    ({ t, agent, agentId, userId } = world);
  });

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
      {
        aclId,
        ip: ALICE_ADDRESS,
        ttlSeconds: expect.any(Number) as number,
        userName: 'alice',
        endsAt: expect.any(Number) as number,
      },
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

  it('ends an allowlist grant as Revoked at once, with nothing sent to an agent', async () => {
    const backend = await givenBackend(t.ctx, { type: 'allowlist' });
    const knoc = await givenEnforcedKnoc(t.ctx, { backendId: backend.id, type: 'allowlist' });
    await t.ctx.db.insertInto('userAcls').values({ userId, aclId: knoc.id }).execute();
    await agent.connect();
    const alice = await signIn('198.51.100.8');
    expect((await grant(alice, knoc.id)).statusCode).toBe(200);
    expect((await aclOf(alice, knoc.id)).Status).toBe(GrantStatus.Published);

    expect((await revoke(alice, knoc.id)).statusCode).toBe(200);
    expect((await aclOf(alice, knoc.id)).Status).toBe(GrantStatus.Revoked);
    const rows = await t.ctx.db
      .selectFrom('grants')
      .select(['endReason', 'status'])
      .where('aclId', '=', knoc.id)
      .execute();
    expect(rows).toEqual([{ endReason: 'revoked', status: GrantStatus.Revoked }]);
    expect(agent.applies()).toEqual([]);
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
    expect(agent.applies()[0]?.add).toEqual([
      { aclId, ip: '192.0.2.200', ttlSeconds: 1800, userName: 'ops', endsAt: t.clock.now() + 1_800_000 },
    ]);
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
