import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  AGENT_OFFLINE_AFTER_SECONDS,
  AGENT_TOKEN_MIN_LENGTH,
  AuditActions,
  ErrorCodes,
  type AgentRecord,
} from '@postern/protocol';
import { bothStores } from '../test-support/store-kinds.js';
import { useTestApp } from '../test-support/use-test-app.js';
import { givenAdmin, givenUser } from '../test-support/factories.js';
import { agentCapabilities, givenAgent } from '../test-support/agent-factories.js';
import { givenAdminSession, givenUserSession } from '../test-support/sessions.js';
import { adminClient, type AdminClient } from '../test-support/admin-client.js';
import { recentAudit } from '../audit/audit.js';
import { uuidv7 } from '../lib/ids.js';
import type { AgentSync } from '../grants/agent-sync.js';
import { findAgentByToken, recordAdmittedConnection } from './agents.repo.js';

const UNKNOWN_ID = '01890000-0000-7000-8000-000000000000';

describe.each(bothStores())('agents API (%s)', (kind) => {
  const t = useTestApp(kind);
  let admin: AdminClient;
  let disconnects: { agentId: string; reason: string }[];
  beforeEach(async () => {
    disconnects = [];
    const recordingSync: AgentSync = {
      entriesChanged: () => undefined,
      deliverEntryChanges: () => Promise.resolve(),
      agentsChanged: () => undefined,
      disconnectAgent: (agentId, reason) => {
        disconnects.push({ agentId, reason });
      },
    };
    t.ctx.agentSync = recordingSync;
    admin = adminClient(t.app, await givenAdminSession(t, await givenAdmin(t.ctx, { userName: 'ops' })));
  });

  const createOk = async (name: string, extra: object = {}) => {
    const response = await admin.post('/api/admin/agents', { Name: name, ...extra });
    expect(response.status, response.response.body).toBe(200);
    return (response.body as { data: AgentRecord }).data;
  };
  const getOk = async (id: string) => {
    const response = await admin.get(`/api/admin/agents/${id}`);
    expect(response.status, response.response.body).toBe(200);
    return (response.body as { data: AgentRecord }).data;
  };
  const storedRow = (id: string) =>
    t.ctx.db.selectFrom('agents').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const givenBackend = async (agentId: string, name: string, type = 'ipset') => {
    const id = uuidv7(t.clock.now());
    await t.ctx.db
      .insertInto('backends')
      .values({ id, name, agentId, type, config: '{}', createdAt: t.clock.now(), updatedAt: t.clock.now() })
      .execute();
    return id;
  };
  const allAuditText = async () =>
    (await t.ctx.db.selectFrom('auditLog').select(['action', 'detail']).execute())
      .map((row) => `${row.action} ${row.detail}`)
      .join('\n');

  it('creates an agent awaiting connection with a random token, audits it and lists it', async () => {
    const agent = await createOk('edge-fw');

    expect(agent).toEqual({
      ID: expect.any(String) as string,
      Name: 'edge-fw',
      Token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) as string,
      LastSeen: null,
      Version: null,
      ExternalIP: null,
      Capabilities: null,
      Online: false,
      EnrolledAt: null,
      KeyFingerprint: null,
      Backends: [],
      LastModifiedAt: new Date(t.clock.now()).toISOString(),
      LastModifiedBy: 'ops',
    });
    expect(agent.Token.length).toBeGreaterThanOrEqual(AGENT_TOKEN_MIN_LENGTH);
    expect(await getOk(agent.ID)).toEqual(agent);
    expect((await admin.get('/api/admin/agents')).body).toEqual({ data: [agent] });
    const [entry] = await recentAudit(t.ctx.db, 1);
    expect(entry?.Entry).toEqual({ [AuditActions.AgentCreated]: { AdminName: 'ops', AgentName: 'edge-fw' } });
  });

  it('stores the SHA-256 of the token and the token only sealed, and finds the agent by its token', async () => {
    const agent = await createOk('edge-fw');
    const row = await storedRow(agent.ID);
    expect(row.tokenHash).toBe(createHash('sha256').update(agent.Token).digest('hex'));
    expect(row.tokenSecret).not.toContain(agent.Token);
    expect(t.ctx.secrets.open(row.tokenSecret, { table: 'agents', column: 'token_secret', rowId: agent.ID })).toBe(
      agent.Token,
    );
    expect((await findAgentByToken(t.ctx.db, agent.Token))?.id).toBe(agent.ID);
    expect(await findAgentByToken(t.ctx.db, `${agent.Token}x`)).toBeNull();
  });

  it('gives every agent its own token and ignores a Token sent in the body', async () => {
    const chosen = 'a-token-somebody-typed-into-the-console';
    const first = await createOk('one', { Token: chosen });
    const second = await createOk('two');
    expect(first.Token).not.toBe(chosen);
    expect(first.Token).not.toBe(second.Token);
    expect(await findAgentByToken(t.ctx.db, chosen)).toBeNull();
  });

  it('lists agents by name', async () => {
    await createOk('zeta');
    await createOk('alpha');
    const list = ((await admin.get('/api/admin/agents')).body as { data: AgentRecord[] }).data;
    expect(list.map((agent) => agent.Name)).toEqual(['alpha', 'zeta']);
  });

  it('refuses a second agent with the same name with 409 err.agentNameExists', async () => {
    await createOk('edge-fw');
    const response = await admin.post('/api/admin/agents', { Name: ' edge-fw ' });
    expect(response.status).toBe(409);
    expect(response.body).toEqual({ Err: ErrorCodes.agentNameExists, Extra: 'Name' });
    expect(((await admin.get('/api/admin/agents')).body as { data: AgentRecord[] }).data).toHaveLength(1);
  });

  it('gives exactly one of two simultaneous creations of a name, and 409 to the other', async () => {
    const responses = await Promise.all([
      admin.post('/api/admin/agents', { Name: 'edge-fw' }),
      admin.post('/api/admin/agents', { Name: 'edge-fw' }),
    ]);
    expect(responses.map((response) => response.status).sort()).toEqual([200, 409]);
  });

  it.each([
    ['Name missing', {}],
    ['Name blank', { Name: '   ' }],
    ['Name too long', { Name: 'x'.repeat(201) }],
  ])('refuses %s with 400', async (_case, payload) => {
    const response = await admin.post('/api/admin/agents', payload);
    expect(response.status).toBe(400);
    expect(response.body as { Err: string; Extra: string }).toMatchObject({
      Err: ErrorCodes.badRequest,
      Extra: expect.stringMatching(/^Name: /) as string,
    });
  });

  describe('update', () => {
    it('renames the agent, keeps its token, and audits the old name', async () => {
      const agent = await createOk('edge-fw');
      t.clock.advance(60_000);
      const response = await admin.put(`/api/admin/agents/${agent.ID}`, { ID: agent.ID, Name: 'core-fw' });
      expect(response.status, response.response.body).toBe(200);
      const updated = (response.body as { data: AgentRecord }).data;
      expect(updated).toEqual({
        ...agent,
        Name: 'core-fw',
        LastModifiedAt: new Date(t.clock.now()).toISOString(),
      });
      const [entry] = await recentAudit(t.ctx.db, 1);
      expect(entry?.Entry).toEqual({
        [AuditActions.AgentUpdated]: { AdminName: 'ops', AgentName: 'core-fw', Description: 'Renamed from edge-fw' },
      });
      expect(disconnects).toEqual([]);
    });

    it('records who changed it last', async () => {
      const agent = await createOk('edge-fw');
      const other = await givenAdmin(t.ctx, { userName: 'second-admin' });
      const second = adminClient(t.app, await givenAdminSession(t, other));
      const changed = await second.put<{ data: AgentRecord }>(`/api/admin/agents/${agent.ID}`, {
        ID: agent.ID,
        Name: 'edge-fw',
      });
      expect(changed.body.data.LastModifiedBy).toBe('second-admin');
    });

    it('answers a body ID that differs from the path with 400 err.mismatchingIds', async () => {
      const agent = await createOk('edge-fw');
      const other = await createOk('other');
      const response = await admin.put(`/api/admin/agents/${agent.ID}`, { ID: other.ID, Name: 'renamed' });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ Err: ErrorCodes.mismatchingIds, Extra: 'ID' });
      expect((await getOk(other.ID)).Name).toBe('other');
    });

    it('refuses a name another agent has with 409 err.agentNameExists', async () => {
      const agent = await createOk('edge-fw');
      await createOk('core-fw');
      const response = await admin.put(`/api/admin/agents/${agent.ID}`, { ID: agent.ID, Name: 'core-fw' });
      expect(response.status).toBe(409);
      expect(response.body).toEqual({ Err: ErrorCodes.agentNameExists, Extra: 'Name' });
      expect((await getOk(agent.ID)).Name).toBe('edge-fw');
    });
  });

  describe('token rotation', () => {
    it('replaces the token, so only the new one finds the agent, and disconnects the agent', async () => {
      const agent = await createOk('edge-fw');
      t.clock.advance(1_000);
      const response = await admin.post(`/api/admin/agents/${agent.ID}/token`);
      expect(response.status, response.response.body).toBe(200);
      const rotated = (response.body as { data: AgentRecord }).data;

      expect(rotated.Token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(rotated.Token).not.toBe(agent.Token);
      expect(rotated.LastModifiedAt).toBe(new Date(t.clock.now()).toISOString());
      expect((await getOk(agent.ID)).Token).toBe(rotated.Token);
      expect(await findAgentByToken(t.ctx.db, agent.Token)).toBeNull();
      expect((await findAgentByToken(t.ctx.db, rotated.Token))?.id).toBe(agent.ID);
      expect((await storedRow(agent.ID)).tokenHash).toBe(createHash('sha256').update(rotated.Token).digest('hex'));
      expect(disconnects).toEqual([{ agentId: agent.ID, reason: 'token rotated' }]);
      const [entry] = await recentAudit(t.ctx.db, 1);
      expect(entry?.Entry).toEqual({ [AuditActions.AgentTokenRotated]: { AdminName: 'ops', AgentName: 'edge-fw' } });
    });
  });

  describe('delete', () => {
    it('deletes the agent, audits it and disconnects it', async () => {
      const agent = await createOk('edge-fw');
      const response = await admin.delete(`/api/admin/agents/${agent.ID}`);
      expect(response.status, response.response.body).toBe(200);
      expect(response.body).toEqual({ data: null });
      expect((await admin.get(`/api/admin/agents/${agent.ID}`)).status).toBe(404);
      expect(await findAgentByToken(t.ctx.db, agent.Token)).toBeNull();
      expect(disconnects).toEqual([{ agentId: agent.ID, reason: 'agent deleted' }]);
      const [entry] = await recentAudit(t.ctx.db, 1);
      expect(entry?.Entry).toEqual({ [AuditActions.AgentDeleted]: { AdminName: 'ops', AgentName: 'edge-fw' } });
    });

    it('refuses while a backend is attached with 409 err.agentHasBackends, and deletes once it is gone', async () => {
      const agent = await createOk('edge-fw');
      const backendId = await givenBackend(agent.ID, 'office ipset');
      const refused = await admin.delete(`/api/admin/agents/${agent.ID}`);
      expect(refused.status).toBe(409);
      expect(refused.body).toEqual({ Err: ErrorCodes.agentHasBackends });
      expect((await getOk(agent.ID)).Name).toBe('edge-fw');
      expect(disconnects).toEqual([]);
      expect(await allAuditText()).not.toContain(AuditActions.AgentDeleted);

      await t.ctx.db.deleteFrom('backends').where('id', '=', backendId).execute();
      expect((await admin.delete(`/api/admin/agents/${agent.ID}`)).status).toBe(200);
    });
  });

  it('lists the backends of each agent by name', async () => {
    const agent = await createOk('edge-fw');
    const other = await createOk('other');
    const proxy = await givenBackend(agent.ID, 'web proxy', 'haproxy');
    const ipset = await givenBackend(agent.ID, 'office ipset', 'ipset');
    await givenBackend(other.ID, 'elsewhere', 'script');
    const expected = [
      { ID: ipset, Name: 'office ipset', Type: 'ipset' },
      { ID: proxy, Name: 'web proxy', Type: 'haproxy' },
    ];
    expect((await getOk(agent.ID)).Backends).toEqual(expected);
    const list = ((await admin.get('/api/admin/agents')).body as { data: AgentRecord[] }).data;
    expect(list.find((entry) => entry.ID === agent.ID)?.Backends).toEqual(expected);
  });

  describe('list validators (ETag, 304)', () => {
    const list = (etag?: string) =>
      admin.get<{ data: AgentRecord[] }>('/api/admin/agents', {
        headers: etag === undefined ? {} : { 'if-none-match': etag },
      });
    /** The list's current tag, after checking that it is a 200 carrying one. */
    const currentEtag = async () => {
      const response = await list();
      expect(response.status, response.response.body).toBe(200);
      expect(response.headers['cache-control']).toBe('private, no-cache');
      const etag = response.headers.etag;
      expect(etag).toMatch(/^"[^"]+"$/);
      return String(etag);
    };
    /** Asserts the tag the caller holds no longer matches, and returns the new one. */
    const changedFrom = async (old: string) => {
      const response = await list(old);
      expect(response.status, 'a change must give a new tag').toBe(200);
      expect(response.headers.etag).not.toBe(old);
      return String(response.headers.etag);
    };

    it('answers the same list with 304 and no body, and the list again with a new tag after a change', async () => {
      const agent = await createOk('edge-fw');
      const etag = await currentEtag();
      const first = await list();
      expect(first.body.data.map((entry) => entry.ID)).toEqual([agent.ID]);

      const unchanged = await list(etag);
      expect(unchanged.status).toBe(304);
      expect(unchanged.response.body).toBe('');
      expect(unchanged.headers.etag).toBe(etag);
      // Weak and listed forms of the same tag match too (RFC 9110).
      expect((await list(`"other", W/${etag}`)).status).toBe(304);

      t.clock.advance(1_000);
      const renamed = await admin.put(`/api/admin/agents/${agent.ID}`, { ID: agent.ID, Name: 'edge-gw' });
      expect(renamed.status, renamed.response.body).toBe(200);
      const afterRename = await changedFrom(etag);
      const body = (await list()).body.data;
      expect(body.map((entry) => entry.Name)).toEqual(['edge-gw']);
      expect((await list(afterRename)).status).toBe(304);
    });

    it('changes the tag on connect, heartbeat, going stale, disconnect, a backend, create and delete', async () => {
      const agent = await givenAgent(t.ctx, { name: 'edge-fw' });
      let etag = await currentEtag();

      t.clock.advance(1_000);
      await recordAdmittedConnection(
        t.ctx.db,
        agent.id,
        { connectionId: 'connection-1', externalIp: '203.0.113.5', lastSeen: t.clock.now() },
        { agentVersion: '1.9.0', capabilities: {}, appliedGeneration: 0 },
        1_000,
      );
      etag = await changedFrom(etag);

      t.clock.advance(1_000);
      await t.ctx.db.updateTable('agents').set({ lastSeen: t.clock.now() }).where('id', '=', agent.id).execute();
      etag = await changedFrom(etag);

      // No write at all: the agent goes offline only because time passes.
      t.clock.advance(AGENT_OFFLINE_AFTER_SECONDS * 1000 + 1);
      expect((await list()).body.data[0]?.Online).toBe(false);
      etag = await changedFrom(etag);

      t.clock.advance(1_000);
      await t.ctx.db.updateTable('agents').set({ lastSeen: t.clock.now() }).where('id', '=', agent.id).execute();
      etag = await changedFrom(etag);
      await t.ctx.db.updateTable('agents').set({ connectionId: null }).where('id', '=', agent.id).execute();
      etag = await changedFrom(etag);

      t.clock.advance(1_000);
      const backend = await givenBackend(agent.id, 'office ipset');
      etag = await changedFrom(etag);
      t.clock.advance(1_000);
      await t.ctx.db
        .updateTable('backends')
        .set({ name: 'branch ipset', updatedAt: t.clock.now() })
        .where('id', '=', backend)
        .execute();
      etag = await changedFrom(etag);
      await t.ctx.db.deleteFrom('backends').where('id', '=', backend).execute();
      etag = await changedFrom(etag);

      const other = await createOk('other');
      etag = await changedFrom(etag);
      expect((await admin.delete(`/api/admin/agents/${other.ID}`)).status).toBe(200);
      etag = await changedFrom(etag);
      expect((await list(etag)).status).toBe(304);
    });

    it('refuses anyone but an admin before any tag is computed', async () => {
      const etag = await currentEtag();
      const anonymous = await t.app.inject({
        method: 'GET',
        url: '/api/admin/agents',
        headers: { 'if-none-match': etag },
      });
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.headers.etag).toBeUndefined();
      const user = await givenUser(t.ctx, { userName: 'alice' });
      const userCookie = await givenUserSession(t, user);
      const asUser = await t.app.inject({
        method: 'GET',
        url: '/api/admin/agents',
        headers: { cookie: userCookie, 'if-none-match': etag },
      });
      expect(asUser.statusCode).toBe(401);
      expect(asUser.headers.etag).toBeUndefined();
    });
  });

  describe('what the agent reported', () => {
    it('shows version, capabilities, last seen and online for a connected agent', async () => {
      const capabilities = agentCapabilities();
      const agent = await givenAgent(t.ctx, { name: 'edge-fw', version: '1.9.2', capabilities, online: true });
      const record = await getOk(agent.id);
      expect(record).toMatchObject({
        Name: 'edge-fw',
        Token: agent.token,
        Version: '1.9.2',
        Capabilities: capabilities,
        LastSeen: new Date(t.clock.now()).toISOString(),
        Online: true,
      });
    });

    it(`is offline once nothing was heard for more than ${AGENT_OFFLINE_AFTER_SECONDS} s, or without a connection`, async () => {
      const agent = await givenAgent(t.ctx, { online: true });
      t.clock.advance(AGENT_OFFLINE_AFTER_SECONDS * 1000);
      expect((await getOk(agent.id)).Online).toBe(true);
      t.clock.advance(1);
      expect((await getOk(agent.id)).Online).toBe(false);

      const disconnected = await givenAgent(t.ctx, { online: true });
      await t.ctx.db.updateTable('agents').set({ connectionId: null }).where('id', '=', disconnected.id).execute();
      const record = await getOk(disconnected.id);
      expect(record.Online).toBe(false);
      expect(record.LastSeen).toBe(new Date(t.clock.now()).toISOString());
    });

    it.each([
      ['203.0.113.5', '203.0.113.5'],
      ['203.0.113.5:40112', '203.0.113.5'],
      ['[2001:db8::1]:443', '2001:db8::1'],
      ['2001:db8::1', '2001:db8::1'],
    ])('shows the external address %s as %s', async (stored, shown) => {
      const agent = await givenAgent(t.ctx);
      await t.ctx.db.updateTable('agents').set({ externalIp: stored }).where('id', '=', agent.id).execute();
      expect((await getOk(agent.id)).ExternalIP).toBe(shown);
    });

    it('shows no capabilities when the stored ones no longer parse', async () => {
      const agent = await givenAgent(t.ctx);
      await t.ctx.db.updateTable('agents').set({ capabilities: '{"ipset":1}' }).where('id', '=', agent.id).execute();
      expect((await getOk(agent.id)).Capabilities).toBeNull();
    });
  });

  it('never writes a token into the audit log', async () => {
    const agent = await createOk('edge-fw');
    await admin.put(`/api/admin/agents/${agent.ID}`, { ID: agent.ID, Name: 'core-fw' });
    const rotated = ((await admin.post(`/api/admin/agents/${agent.ID}/token`)).body as { data: AgentRecord }).data;
    await admin.delete(`/api/admin/agents/${agent.ID}`);
    const text = await allAuditText();
    for (const action of ['AgentCreated', 'AgentUpdated', 'AgentTokenRotated', 'AgentDeleted']) {
      expect(text).toContain(action);
    }
    for (const secret of [agent.Token, rotated.Token]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(createHash('sha256').update(secret).digest('hex'));
    }
  });

  it.each([
    ['GET', `/api/admin/agents/${UNKNOWN_ID}`, undefined],
    ['PUT', `/api/admin/agents/${UNKNOWN_ID}`, { ID: UNKNOWN_ID, Name: 'x' }],
    ['DELETE', `/api/admin/agents/${UNKNOWN_ID}`, undefined],
    ['POST', `/api/admin/agents/${UNKNOWN_ID}/token`, undefined],
  ] as const)('answers %s %s for an unknown agent with 404', async (method, url, payload) => {
    const response = await admin.request(method, url, payload);
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ Err: ErrorCodes.notFound, Extra: 'agent' });
    expect(disconnects).toEqual([]);
  });

  it.each([
    ['GET', '/api/admin/agents'],
    ['GET', `/api/admin/agents/${UNKNOWN_ID}`],
    ['POST', '/api/admin/agents'],
    ['PUT', `/api/admin/agents/${UNKNOWN_ID}`],
    ['DELETE', `/api/admin/agents/${UNKNOWN_ID}`],
    ['POST', `/api/admin/agents/${UNKNOWN_ID}/token`],
  ] as const)('answers %s %s without an admin session with 401, before looking at the body', async (method, url) => {
    const user = await givenUser(t.ctx);
    const userCookie = await givenUserSession(t, user);
    for (const headers of [{}, { cookie: '__Host-postern_admin_session=forged' }, { cookie: userCookie }]) {
      const response = await t.app.inject({
        method,
        url,
        headers,
        payload: method === 'GET' ? undefined : { junk: 1 },
      });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ Err: ErrorCodes.invalidSession });
    }
  });
});
