import { beforeEach, describe, expect, it } from 'vitest';
import { AuditActions, ErrorCodes, GrantStatus, KnocTestResponse } from '@postern/protocol';
import type { TestApp } from '../test-support/test-app.js';
import type { FakeAgent } from '../test-support/fake-agent.js';
import { givenAdmin } from '../test-support/factories.js';
import { givenAdminSession, givenUserSession } from '../test-support/sessions.js';
import { adminClient, type AdminClient } from '../test-support/admin-client.js';
import { givenIpsetKnoc, useGrantEngineWorld } from '../test-support/grant-engine-world.js';
import { givenBackend, givenEnforcedKnoc } from '../test-support/knoc-factories.js';
import { recentAudit } from '../audit/audit.js';
import { writeSetting } from '../settings/settings.js';
import { findAdminByUserName } from '../admins/admins.repo.js';
import { DIRECTORY } from '../lib/account-provider.js';
import { ApiError } from '../errors.js';
import { testKnoc } from './knoc-test.service.js';

/** A documentation address (RFC 5737): what an admin's browser would come from. */
const TEST_ADDRESS = '203.0.113.9';

// SQLite only (the store-kinds rule); the read-back on PostgreSQL: tests/system/grants-netns.system.test.ts.
describe('POST /api/admin/knocs/{id}/test (sqlite)', () => {
  const world = useGrantEngineWorld('sqlite');
  let t: TestApp, agent: FakeAgent, agentId: string, userId: string, admin: AdminClient;
  beforeEach(async () => {
    ({ t, agent, agentId, userId } = world);
    const ops = await givenAdmin(t.ctx, { userName: 'ops' });
    admin = adminClient(t.app, await givenAdminSession(t, ops));
  });

  const grantsOf = (aclId: string) =>
    t.ctx.db
      .selectFrom('grants')
      .select(['ip', 'status', 'endedAt', 'endReason', 'origin'])
      .where('aclId', '=', aclId)
      .execute();

  it('grants the address for a minute, answers with the agent’s read-back, and has revoked it', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId);
    await agent.connect();

    const result = await admin.data('POST', `/api/admin/knocs/${aclId}/test`, KnocTestResponse, { IP: TEST_ADDRESS });

    expect(result).toMatchObject({
      IP: TEST_ADDRESS,
      Applied: true,
      ReadBack: { State: 'held', Held: true, Detail: '', AgentName: 'edge' },
      Revoked: true,
      RevokeError: '',
    });
    expect(result.ExpiresAt).toBe(new Date(t.clock.now() + 60_000).toISOString());
    const [added, removed] = agent.applies();
    // The test's entry, and only it, asks the agent to read the device back.
    expect(added?.add).toEqual([
      { aclId, ip: TEST_ADDRESS, ttlSeconds: 60, userName: 'ops', endsAt: t.clock.now() + 60_000, verify: true },
    ]);
    expect(removed?.remove).toEqual([{ aclId, ip: TEST_ADDRESS }]);
    expect(await grantsOf(aclId)).toEqual([
      { ip: TEST_ADDRESS, status: GrantStatus.Revoked, endedAt: t.clock.now(), endReason: 'admin', origin: 'admin' },
    ]);
    const [revoke, test] = await recentAudit(t.ctx.db, 2);
    expect(test?.Entry[AuditActions.AdminKnocTest]).toMatchObject({ AdminName: 'ops', IpAddress: TEST_ADDRESS });
    expect(revoke?.Entry[AuditActions.Revoke]).toMatchObject({ AdminName: 'ops', IpAddress: TEST_ADDRESS });
  });

  it.each([
    ['absent', { readBack: 'absent' as const }, { State: 'absent', Held: false, Detail: '' }],
    [
      'unreadable',
      { readBack: 'unreadable' as const, readBackDetail: 'a script cannot be read back' },
      { State: 'unreadable', Held: false, Detail: 'a script cannot be read back' },
    ],
    // An agent older than read-back answers the write only.
    ['unreported', {}, { State: 'unreported', Held: false, Detail: '' }],
  ])('answers a read-back of %s as the agent reported it', async (_name, answer, readBack) => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId);
    agent.decide = ({ verify: _verify, ...entry }) => ({
      ...entry,
      ok: true,
      error: '',
      ...(entry.action === 'add' ? answer : {}),
    });
    await agent.connect();
    const result = await admin.data('POST', `/api/admin/knocs/${aclId}/test`, KnocTestResponse, { IP: TEST_ADDRESS });
    expect(result).toMatchObject({ Applied: true, ReadBack: readBack, Revoked: true });
  });

  it('asks no read-back for a user’s grant, and keeps none the agent offers for it', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId);
    agent.decide = ({ verify: _verify, ...entry }) => ({ ...entry, ok: true, error: '', readBack: 'absent' });
    await agent.connect();
    const granted = await world.grant(await world.signIn(TEST_ADDRESS), aclId);
    expect(granted.statusCode, granted.body).toBe(200);
    await world.settle();
    expect(agent.applies()[0]?.add.map((entry) => entry.verify)).toEqual([undefined]);
    const rows = await t.ctx.db
      .selectFrom('grants')
      .select(['readBack', 'verify'])
      .where('aclId', '=', aclId)
      .execute();
    expect(rows.map((row) => ({ readBack: row.readBack, verify: Boolean(row.verify) }))).toEqual([
      { readBack: null, verify: false },
    ]);
  });

  it('tests the admin’s own address when none is named', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId);
    await agent.connect();
    const answer = await admin.post<{ data: { IP: string } }>(
      `/api/admin/knocs/${aclId}/test`,
      {},
      { remoteAddress: '198.51.100.44' },
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data.IP).toBe('198.51.100.44');
    expect(agent.applies()[0]?.add.map((entry) => entry.ip)).toEqual(['198.51.100.44']);
  });

  it('refuses the admin’s own address when it is loopback (400 err.ipAddressNotGrantable)', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId);
    await agent.connect();
    const { status, body } = await admin.post(
      `/api/admin/knocs/${aclId}/test`,
      { IP: '' },
      { remoteAddress: '127.0.0.1' },
    );
    expect({ status, body }).toEqual({ status: 400, body: { Err: ErrorCodes.ipAddressNotGrantable, Extra: 'IP' } });
  });

  it('refuses while the knoc’s agent is offline (409 err.agentOffline), granting nothing', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId);
    const { status, body } = await admin.post(`/api/admin/knocs/${aclId}/test`, { IP: TEST_ADDRESS });
    expect({ status, body }).toEqual({ status: 409, body: { Err: ErrorCodes.agentOffline } });
    expect(await grantsOf(aclId)).toEqual([]);
  });

  it.each([
    ['loopback', '127.0.0.1', ErrorCodes.ipAddressNotGrantable],
    ['cloud metadata', '169.254.169.254', ErrorCodes.ipAddressNotGrantable],
    ['a range', '192.0.2.0/24', ErrorCodes.invalidIpAddress],
    ['no address', 'not-an-ip', ErrorCodes.invalidIpAddress],
  ])('refuses %s as the test address (400, Extra IP), granting nothing', async (_name, ip, code) => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId);
    await agent.connect();
    const { status, body } = await admin.post(`/api/admin/knocs/${aclId}/test`, { IP: ip });
    expect({ status, body }).toEqual({ status: 400, body: { Err: code, Extra: 'IP' } });
    expect(await grantsOf(aclId)).toEqual([]);
    expect(agent.applies()).toEqual([]);
  });

  it('refuses an address the knoc’s exclusions keep out (403)', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId, {
      ipExclusions: { RestrictionType: 'RFC1918', RfcType: 'allow', Ranges: [] },
    });
    await agent.connect();
    const { status, body } = await admin.post(`/api/admin/knocs/${aclId}/test`, { IP: TEST_ADDRESS });
    expect({ status, body }).toEqual({ status: 403, body: { Err: ErrorCodes.aclDisabledForUser } });
    expect(await grantsOf(aclId)).toEqual([]);
  });

  it('answers the device’s error when the apply fails (409), and the test grant is ended', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId);
    agent.decide = (entry) => ({
      ...entry,
      ok: entry.action === 'remove',
      error: entry.action === 'add' ? 'ipset v7.17: The set with the given name does not exist' : '',
    });
    await agent.connect();
    const { status, body } = await admin.post(`/api/admin/knocs/${aclId}/test`, { IP: TEST_ADDRESS });
    expect({ status, body }).toEqual({
      status: 409,
      body: { Err: ErrorCodes.knocTestApplyFailed, Extra: 'ipset v7.17: The set with the given name does not exist' },
    });
    const [grant] = await grantsOf(aclId);
    expect(grant).toMatchObject({ endedAt: t.clock.now(), endReason: 'admin' });
  });

  it('gives up on an agent that never answers (409 err.knocTestNoAnswer), and the test grant is ended', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId);
    agent.decide = () => null;
    await agent.connect();
    const ops = await findAdminByUserName(t.ctx.db, DIRECTORY, 'ops');
    if (ops === null) throw new Error('the admin was not made');
    // The route waits 15 s for each report; the service is called with a short wait to see the limit.
    const failure = await testKnoc(t.ctx, ops, aclId, TEST_ADDRESS, { answerTimeoutMs: 200 }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ statusCode: 409, code: ErrorCodes.knocTestNoAnswer });
    const [grant] = await grantsOf(aclId);
    expect(grant).toMatchObject({ endedAt: t.clock.now(), endReason: 'admin' });
    expect(agent.applies()[0]?.add.map((entry) => entry.ip)).toEqual([TEST_ADDRESS]);
  });

  it('refuses a knoc no agent enforces (an allowlist: 409 err.knocTestNoDevice)', async () => {
    const backend = await givenBackend(t.ctx, { type: 'allowlist' });
    const knoc = await givenEnforcedKnoc(t.ctx, { backendId: backend.id, type: 'allowlist' });
    const { status, body } = await admin.post(`/api/admin/knocs/${knoc.id}/test`, { IP: TEST_ADDRESS });
    expect({ status, body }).toEqual({ status: 409, body: { Err: ErrorCodes.knocTestNoDevice } });
  });

  it('answers 404 for a knoc that does not exist', async () => {
    const { status, body } = await admin.post('/api/admin/knocs/0190a0b0-0000-7000-8000-00000000dead/test', {
      IP: TEST_ADDRESS,
    });
    expect({ status, body }).toEqual({ status: 404, body: { Err: ErrorCodes.notFound } });
  });

  it('refuses on an unlicensed installation (403 err.licenceRequired)', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId);
    await agent.connect();
    await writeSetting(t.ctx.db, 'License', '', t.clock.now());
    const { status, body } = await admin.post(`/api/admin/knocs/${aclId}/test`, { IP: TEST_ADDRESS });
    expect({ status, body }).toEqual({ status: 403, body: { Err: ErrorCodes.licenceRequired } });
    expect(await grantsOf(aclId)).toEqual([]);
  });

  it('is for admins only: a user’s session or none is refused with 401, granting nothing', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId);
    await agent.connect();
    const userCookie = await givenUserSession(t, { id: userId });
    for (const cookie of [userCookie, undefined]) {
      const response = await t.app.inject({
        method: 'POST',
        url: `/api/admin/knocs/${aclId}/test`,
        headers: { ...(cookie === undefined ? {} : { cookie }), origin: 'http://postern.test', host: 'postern.test' },
        payload: { IP: TEST_ADDRESS },
      });
      expect(response.statusCode, response.body).toBe(401);
    }
    expect(await grantsOf(aclId)).toEqual([]);
  });
});
