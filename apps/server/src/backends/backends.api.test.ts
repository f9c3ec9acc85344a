import { beforeEach, describe, expect, it } from 'vitest';
import {
  AuditActions,
  ErrorCodes,
  NO_AGENT_ID,
  RECORDED,
  type AgentCapabilities,
  type BackendRecord,
} from '@postern/protocol';
import { type TestApp } from '../test-support/test-app.js';
import { bothStores } from '../test-support/store-kinds.js';
import { agentCapabilities, givenAgent } from '../test-support/agent-factories.js';
import { givenEnforcedKnoc } from '../test-support/knoc-factories.js';
import { UNKNOWN_ID } from '../test-support/admin-api-world.js';
import { FORTIOS, useBackendsApiWorld } from '../test-support/backend-api-fixtures.js';
import { recentAudit } from '../audit/audit.js';
import { findBackendRow } from './backends.repo.js';

// Creating, moving, updating and deleting backends; what their config may hold and how its
// secrets are kept: backends-config.api.test.ts.
describe.each(bothStores())('backends API (%s)', (kind) => {
  const world = useBackendsApiWorld(kind);
  const { agentsChanged, call, createOk, refusal } = world;
  let t: TestApp, agentId: string;
  beforeEach(() => {
    t = world.t;
    agentId = world.agent.id;
  });

  it('creates a backend on a capable agent, audits it and shows it in the list and by id', async () => {
    const backend = await createOk({ Name: 'edge sets', AgentID: agentId, Config: { ipset: {} } });
    expect(backend).toEqual({
      ID: expect.any(String) as string,
      Name: 'edge sets',
      AgentID: agentId,
      AgentName: 'edge',
      Type: 'ipset',
      Config: { ipset: {} },
      LastModifiedAt: new Date(t.clock.now()).toISOString(),
      LastModifiedBy: 'ops',
    });
    expect((await call('GET', `/api/admin/backends/${backend.ID}`)).json()).toEqual({ data: backend });
    expect((await call('GET', '/api/admin/backends')).json()).toEqual({ data: [backend] });
    const [entry] = await recentAudit(t.ctx.db, 1);
    expect(entry?.Entry).toEqual({ [AuditActions.BackendCreated]: { AdminName: 'ops', Description: 'edge sets' } });
    expect(agentsChanged).toEqual([[agentId]]);
  });

  it('fills the type defaults of the config (fortios Prefix kk_, Insecure false)', async () => {
    const backend = await createOk({ Name: 'fw', AgentID: agentId, Config: { fortios: FORTIOS } });
    expect(backend.Config).toEqual({
      fortios: { Url: FORTIOS.Url, Insecure: false, Bearer: RECORDED, Prefix: 'kk_', VDOM: 'root' },
    });
  });

  it('stores an allowlist backend without an agent, whatever AgentID says', async () => {
    const none = await createOk({ Name: 'published', Config: { allowlist: {} } });
    const sent = await createOk({ Name: 'published too', AgentID: agentId, Config: { allowlist: {} } });
    for (const backend of [none, sent]) {
      expect(backend).toMatchObject({ AgentID: NO_AGENT_ID, AgentName: '', Type: 'allowlist' });
      expect((await findBackendRow(t.ctx.db, backend.ID))?.agentId).toBeNull();
    }
    // No agent drives a published list: no agent is told anything.
    expect(agentsChanged).toEqual([]);
  });

  describe('the agent', () => {
    it.each([
      ['missing', {}],
      ['null', { AgentID: null }],
      ['the all-zero id', { AgentID: NO_AGENT_ID }],
      ['unknown', { AgentID: UNKNOWN_ID }],
    ])('is required for every type but allowlist: %s is err.agentIdIncorrect', async (_case, agent) => {
      const response = await call('POST', '/api/admin/backends', { Name: 'b', ...agent, Config: { ipset: {} } });
      expect(refusal(response)).toEqual({ status: 400, Err: ErrorCodes.agentIdIncorrect, Extra: 'AgentID' });
    });

    const incapable: [string, AgentCapabilities | null, string, string][] = [
      ['never connected', null, 'ipset', ErrorCodes.agentNeverConnected],
      [
        'does not list the type',
        agentCapabilities({ backend_types: ['haproxy'] }),
        'ipset',
        ErrorCodes.agentBackendTypeNotSupported,
      ],
      [
        'has no ipset command',
        agentCapabilities({ ipset: { command_available: false, sudo_enabled: true, ipsets: [] } }),
        'ipset',
        ErrorCodes.ipsetNoCommand,
      ],
      [
        'may not run ipset',
        agentCapabilities({ ipset: { command_available: true, sudo_enabled: false, ipsets: [] } }),
        'ipset',
        ErrorCodes.ipsetNoSudo,
      ],
      [
        'has scripts disabled',
        agentCapabilities({ script: { enabled: false } }),
        'script',
        ErrorCodes.agentScriptsDisabled,
      ],
    ];
    it.each(incapable)('that %s is refused: err.agentIncapable', async (_case, capabilities, type, reason) => {
      const other = await givenAgent(t.ctx, { capabilities, version: '2.0.0' });
      const config = type === 'script' ? { script: { Command: 'notify.sh' } } : { [type]: {} };
      const response = await call('POST', '/api/admin/backends', { Name: 'b', AgentID: other.id, Config: config });
      expect(refusal(response)).toEqual({ status: 400, Err: ErrorCodes.agentIncapable, Extra: reason });
    });

    it.each([
      ['ipset', '1.5.9', { ipset: {} }, false],
      ['ipset', '1.6.0', { ipset: {} }, true],
      ['ipset', 'v1.10.0-rc1', { ipset: {} }, true],
      ['ipset', null, { ipset: {} }, true],
      ['sophosutm', '1.8.9', { sophosutm: { Hostname: 'utm', ApiKey: 'k' } }, false],
      ['sophosutm', '1.9.0', { sophosutm: { Hostname: 'utm', ApiKey: 'k' } }, true],
    ])('needs the minimum version for %s: agent %s', async (type, version, config, accepted) => {
      const other = await givenAgent(t.ctx, { capabilities: agentCapabilities(), version });
      const response = await call('POST', '/api/admin/backends', { Name: 'b', AgentID: other.id, Config: config });
      if (accepted) {
        expect(response.statusCode, response.body).toBe(200);
      } else {
        const minimum = type === 'sophosutm' ? '1.9.0' : '1.6.0';
        expect(refusal(response)).toEqual({ status: 400, Err: ErrorCodes.agentVersionTooOld, Extra: minimum });
      }
    });
  });

  describe('update', () => {
    it('keeps the type: a different key in Config is err.backendTypeFixed', async () => {
      const backend = await createOk({ Name: 'sets', AgentID: agentId, Config: { ipset: {} } });
      const response = await call('PUT', `/api/admin/backends/${backend.ID}`, {
        ID: backend.ID,
        Name: 'sets',
        AgentID: agentId,
        Config: { haproxy: { Protocol: 'unix', Address: '/run/haproxy.sock' } },
      });
      expect(refusal(response)).toEqual({
        status: 400,
        Err: ErrorCodes.backendTypeFixed,
        Extra: 'Config: ipset',
      });
    });

    it('refuses a body whose ID is not the path id (err.mismatchingIds)', async () => {
      const backend = await createOk({ Name: 'sets', AgentID: agentId, Config: { ipset: {} } });
      const response = await call('PUT', `/api/admin/backends/${backend.ID}`, {
        ID: UNKNOWN_ID,
        Name: 'sets',
        AgentID: agentId,
        Config: { ipset: {} },
      });
      expect(refusal(response)).toEqual({ status: 400, Err: ErrorCodes.mismatchingIds, Extra: 'ID' });
    });

    it('refuses a name another backend has', async () => {
      await createOk({ Name: 'taken', Config: { allowlist: {} } });
      const backend = await createOk({ Name: 'mine', Config: { allowlist: {} } });
      const response = await call('PUT', `/api/admin/backends/${backend.ID}`, {
        ID: backend.ID,
        Name: 'taken',
        Config: { allowlist: {} },
      });
      expect(refusal(response)).toEqual({ status: 409, Err: ErrorCodes.backendNameExists, Extra: 'Name' });
    });

    it('moves to another agent only when that agent is capable, and tells both agents', async () => {
      const backend = await createOk({ Name: 'sets', AgentID: agentId, Config: { ipset: {} } });
      const blind = await givenAgent(t.ctx, { capabilities: null });
      const capable = await givenAgent(t.ctx, { name: 'core', capabilities: agentCapabilities() });
      const move = (to: string) =>
        call('PUT', `/api/admin/backends/${backend.ID}`, {
          ID: backend.ID,
          Name: 'sets',
          AgentID: to,
          Config: { ipset: {} },
        });
      expect(refusal(await move(blind.id))).toEqual({
        status: 400,
        Err: ErrorCodes.agentIncapable,
        Extra: ErrorCodes.agentNeverConnected,
      });
      agentsChanged.length = 0;
      const moved = await move(capable.id);
      expect(moved.json<{ data: BackendRecord }>().data).toMatchObject({ AgentID: capable.id, AgentName: 'core' });
      expect(agentsChanged).toEqual([[agentId, capable.id]]);
      const [entry] = await recentAudit(t.ctx.db, 1);
      expect(entry?.Entry).toEqual({ [AuditActions.BackendUpdated]: { AdminName: 'ops', Description: 'sets' } });
    });

    it('refuses moving an ipset backend to an agent without the sets its knocs use', async () => {
      const backend = await createOk({ Name: 'sets', AgentID: agentId, Config: { ipset: {} } });
      await givenEnforcedKnoc(t.ctx, { backendId: backend.ID, type: 'ipset', aclConfig: { V4SetName: 'postern4' } });
      const other = await givenAgent(t.ctx, {
        capabilities: agentCapabilities({
          ipset: { command_available: true, sudo_enabled: true, ipsets: [{ name: 'other4', address_family: 'inet' }] },
        }),
      });
      const response = await call('PUT', `/api/admin/backends/${backend.ID}`, {
        ID: backend.ID,
        Name: 'sets',
        AgentID: other.id,
        Config: { ipset: {} },
      });
      expect(refusal(response)).toEqual({ status: 400, Err: ErrorCodes.ipsetNotAllowed, Extra: 'postern4' });
    });

    it('keeps a backend editable on its own agent whatever that agent reports now', async () => {
      const backend = await createOk({ Name: 'sets', AgentID: agentId, Config: { ipset: {} } });
      await t.ctx.db.updateTable('agents').set({ capabilities: null }).where('id', '=', agentId).execute();
      const response = await call('PUT', `/api/admin/backends/${backend.ID}`, {
        ID: backend.ID,
        Name: 'renamed',
        AgentID: agentId,
        Config: { ipset: {} },
      });
      expect(response.statusCode, response.body).toBe(200);
    });
  });

  describe('delete', () => {
    it('deletes the backend with its knocs and their children, audits each and tells the agents', async () => {
      const backend = await createOk({ Name: 'sets', AgentID: agentId, Config: { ipset: {} } });
      const knoc = await givenEnforcedKnoc(t.ctx, {
        backendId: backend.ID,
        type: 'ipset',
        aclConfig: { V4SetName: 'postern4' },
        options: { Description: 'SSH' },
      });
      const otherAgent = await givenAgent(t.ctx, { capabilities: agentCapabilities() });
      const childBackend = await createOk({
        Name: 'proxy',
        AgentID: otherAgent.id,
        Config: { knocproxy: { Protocol: 'tcp', Address: '127.0.0.1:8080' } },
      });
      await givenEnforcedKnoc(t.ctx, {
        backendId: childBackend.ID,
        type: 'knocproxy',
        aclConfig: { Name: 'child' },
        options: { Description: 'SSH child', ParentID: knoc.id, HideFromAdmins: true },
      });
      agentsChanged.length = 0;

      const response = await call('DELETE', `/api/admin/backends/${backend.ID}`);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({ data: null });
      expect(await t.ctx.db.selectFrom('knocs').select('description').execute()).toEqual([]);
      expect((await call('GET', `/api/admin/backends/${backend.ID}`)).statusCode).toBe(404);
      const audit = (await recentAudit(t.ctx.db, 3)).map((entry) => entry.Entry);
      expect(audit).toEqual([
        { [AuditActions.BackendDeleted]: { AdminName: 'ops', Description: 'sets' } },
        { [AuditActions.KnocDeleted]: { AdminName: 'ops', AclDescription: 'SSH child' } },
        { [AuditActions.KnocDeleted]: { AdminName: 'ops', AclDescription: 'SSH' } },
      ]);
      expect(agentsChanged.map((ids) => [...ids].sort())).toEqual([[agentId, otherAgent.id].sort()]);
    });

    it('answers 404 for an unknown backend', async () => {
      expect((await call('DELETE', `/api/admin/backends/${UNKNOWN_ID}`)).statusCode).toBe(404);
      expect((await call('GET', `/api/admin/backends/${UNKNOWN_ID}`)).statusCode).toBe(404);
    });
  });
});
