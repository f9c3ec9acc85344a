import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AuditActions,
  ErrorCodes,
  NO_AGENT_ID,
  RECORDED,
  type AgentCapabilities,
  type BackendRecord,
} from '@postern/protocol';
import { createTestApp, testStoreKinds, type TestApp } from '../test-support/test-app.js';
import { givenAdmin } from '../test-support/factories.js';
import { agentCapabilities, givenAgent } from '../test-support/agent-factories.js';
import { givenEnforcedKnoc } from '../test-support/knoc-factories.js';
import { signInAdmin } from '../test-support/http.js';
import { recentAudit } from '../audit/audit.js';
import type { AgentSync } from '../grants/agent-sync.js';
import { findBackendRow, loadBackendConfigForAgent } from './backends.repo.js';

const UNKNOWN_ID = '01890000-0000-7000-8000-000000000000';
const FORTIOS = { Url: 'https://fw.example.net', Bearer: 'bearer-secret-1', VDOM: 'root' };

describe.each(testStoreKinds())('backends API (%s)', (kind) => {
  let t: TestApp;
  let cookie: string;
  let agentsChanged: string[][];
  let agentId: string;
  beforeEach(async () => {
    t = await createTestApp(kind);
    agentsChanged = [];
    const recordingSync: AgentSync = {
      entriesChanged: () => undefined,
      deliverEntryChanges: () => Promise.resolve(),
      agentsChanged: (ids) => {
        agentsChanged.push([...ids]);
      },
      disconnectAgent: () => undefined,
    };
    t.ctx.agentSync = recordingSync;
    const admin = await givenAdmin(t.ctx, { userName: 'ops' });
    cookie = await signInAdmin(t.app, 'ops', admin.password);
    agentId = (await givenAgent(t.ctx, { name: 'edge', capabilities: agentCapabilities(), version: '1.9.0' })).id;
  });
  afterEach(async () => {
    await t.close();
  });

  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({ method, url, headers: { cookie }, ...(payload === undefined ? {} : { payload }) });
  const createOk = async (payload: object) => {
    const response = await call('POST', '/api/admin/backends', payload);
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ data: BackendRecord }>().data;
  };
  const refusal = (response: Awaited<ReturnType<typeof call>>) => ({
    status: response.statusCode,
    ...response.json<{ Err: string; Extra?: string }>(),
  });
  const rawConfig = async (id: string) => {
    const row = await t.ctx.db.selectFrom('backends').select('config').where('id', '=', id).executeTakeFirstOrThrow();
    return JSON.parse(row.config) as Record<string, unknown>;
  };

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

  describe('config validation', () => {
    it.each([
      ['no type', {}, ErrorCodes.backendConfigOneType],
      ['two types', { ipset: {}, allowlist: {} }, ErrorCodes.backendConfigOneType],
      ['an unknown type', { juniper: {} }, ErrorCodes.backendConfigOneType],
      [
        'a unix socket that is no path',
        { haproxy: { Protocol: 'unix', Address: 'haproxy.sock' } },
        ErrorCodes.invalidAddress,
      ],
      [
        'a tcp address without a port',
        { haproxy: { Protocol: 'tcp', Address: '127.0.0.1' } },
        ErrorCodes.invalidAddress,
      ],
      ['a Fortinet URL that is not http', { fortios: { ...FORTIOS, Url: 'ftp://fw' } }, ErrorCodes.urlMustBeHttp],
    ])('refuses %s', async (_case, config, code) => {
      const response = await call('POST', '/api/admin/backends', { Name: 'b', AgentID: agentId, Config: config });
      expect(response.statusCode).toBe(400);
      expect(response.json<{ Err: string }>().Err).toBe(code);
    });

    it.each([
      ['haproxy', { Protocol: 'unix' }],
      ['knocproxy', { Address: '127.0.0.1:8080' }],
      ['script', {}],
      ['fortios', { Url: 'https://fw' }],
      ['panos', { Hostname: 'pan' }],
    ])('refuses %s without its required fields', async (type, fields) => {
      const response = await call('POST', '/api/admin/backends', {
        Name: 'b',
        AgentID: agentId,
        Config: { [type]: fields },
      });
      expect(response.statusCode).toBe(400);
    });

    it('refuses a second backend with the same name (409 err.backendNameExists)', async () => {
      await createOk({ Name: 'same', Config: { allowlist: {} } });
      const response = await call('POST', '/api/admin/backends', { Name: 'same', Config: { allowlist: {} } });
      expect(refusal(response)).toEqual({ status: 409, Err: ErrorCodes.backendNameExists, Extra: 'Name' });
    });
  });

  describe('admin-configured addresses are checked when saved', () => {
    const PANOS = { Hostname: 'pan.example.net', ApiKey: 'pan-key-1' };
    it.each([
      [
        'a Fortinet URL with credentials',
        { fortios: { ...FORTIOS, Url: 'https://admin:pw@fw.example.net' } },
        { Err: ErrorCodes.urlCredentialsNotAllowed, Extra: 'Config.fortios.Url' },
      ],
      [
        'a Fortinet URL with a space in its host',
        { fortios: { ...FORTIOS, Url: 'https://fw example.net' } },
        { Err: ErrorCodes.urlInvalid, Extra: 'Config.fortios.Url' },
      ],
      [
        'a Fortinet URL with an octal-looking address',
        { fortios: { ...FORTIOS, Url: 'https://010.0.0.1' } },
        { Err: ErrorCodes.urlInvalid, Extra: 'Config.fortios.Url' },
      ],
      [
        'a PAN-OS Hostname that is a URL',
        { panos: { ...PANOS, Hostname: 'https://pan.example.net' } },
        { Err: ErrorCodes.invalidHostname, Extra: 'Config.panos.Hostname' },
      ],
      [
        'a FortiManager Hostname with credentials',
        { fortimanager: { Hostname: 'admin@fmg.example.net', ApiKey: 'k' } },
        { Err: ErrorCodes.invalidHostname, Extra: 'Config.fortimanager.Hostname' },
      ],
      [
        'a FMC Hostname with a newline',
        { firepower: { Hostname: 'fmc\n.example.net', Username: 'u', Password: 'p' } },
        { Err: ErrorCodes.invalidHostname, Extra: 'Config.firepower.Hostname' },
      ],
      [
        'a Sophos UTM Hostname with a path',
        { sophosutm: { Hostname: 'utm.example.net/api', ApiKey: 'k' } },
        { Err: ErrorCodes.invalidHostname, Extra: 'Config.sophosutm.Hostname' },
      ],
      [
        'a Sophos Firewall Hostname with a bad port',
        { sophossfos: { Hostname: 'sfos.example.net:70000', Username: 'u', Password: 'p' } },
        { Err: ErrorCodes.invalidHostname, Extra: 'Config.sophossfos.Hostname' },
      ],
    ])('refuses %s on create', async (_case, config, expected) => {
      const response = await call('POST', '/api/admin/backends', { Name: 'vendor', AgentID: agentId, Config: config });
      expect(refusal(response)).toEqual({ status: 400, ...expected });
    });

    it.each([
      ['Hostname', { Hostname: 'pan.example.net/api', ApiKey: 'k2' }, ErrorCodes.invalidHostname],
      ['Hostname', { Hostname: 'ops:pw@pan.example.net', ApiKey: 'k2' }, ErrorCodes.invalidHostname],
    ])('refuses a bad %s on update and keeps the stored one', async (field, fields, code) => {
      const backend = await createOk({ Name: 'pan', AgentID: agentId, Config: { panos: PANOS } });
      const response = await call('PUT', `/api/admin/backends/${backend.ID}`, {
        ID: backend.ID,
        Name: 'pan',
        AgentID: agentId,
        Config: { panos: fields },
      });
      expect(refusal(response)).toEqual({ status: 400, Err: code, Extra: `Config.panos.${field}` });
      expect((await findBackendRow(t.ctx.db, backend.ID))?.config.Hostname).toBe(PANOS.Hostname);
    });

    it('refuses a Fortinet URL with credentials on update', async () => {
      const backend = await createOk({ Name: 'fw', AgentID: agentId, Config: { fortios: FORTIOS } });
      const response = await call('PUT', `/api/admin/backends/${backend.ID}`, {
        ID: backend.ID,
        Name: 'fw',
        AgentID: agentId,
        Config: { fortios: { ...FORTIOS, Url: 'https://admin:pw@fw.example.net' } },
      });
      expect(refusal(response)).toEqual({
        status: 400,
        Err: ErrorCodes.urlCredentialsNotAllowed,
        Extra: 'Config.fortios.Url',
      });
    });

    it('still reads a backend stored before the rule, and its agent still gets it', async () => {
      const backend = await createOk({ Name: 'pan', AgentID: agentId, Config: { panos: PANOS } });
      const stored = await rawConfig(backend.ID);
      await t.ctx.db
        .updateTable('backends')
        .set({ config: JSON.stringify({ ...stored, Hostname: 'pan old.example.net' }) })
        .where('id', '=', backend.ID)
        .execute();
      const read = await call('GET', `/api/admin/backends/${backend.ID}`);
      expect(read.statusCode).toBe(200);
      expect(read.json<{ data: BackendRecord }>().data.Config.panos?.Hostname).toBe('pan old.example.net');
      expect((await call('GET', '/api/admin/backends')).statusCode).toBe(200);
      const row = await findBackendRow(t.ctx.db, backend.ID);
      expect(loadBackendConfigForAgent(t.ctx, row!)).toMatchObject({ Hostname: 'pan old.example.net' });
    });
  });

  describe('secrets', () => {
    it('stores secrets encrypted, shows them as RECORDED and opens them for the agent only', async () => {
      const backend = await createOk({ Name: 'fw', AgentID: agentId, Config: { fortios: FORTIOS } });
      expect(JSON.stringify(backend)).not.toContain(FORTIOS.Bearer);
      const stored = await rawConfig(backend.ID);
      expect(stored.Bearer).toMatch(/^v1\./);
      expect(JSON.stringify(stored)).not.toContain(FORTIOS.Bearer);
      expect(stored.Url).toBe(FORTIOS.Url);
      const row = await findBackendRow(t.ctx.db, backend.ID);
      expect(loadBackendConfigForAgent(t.ctx, row!)).toMatchObject({ Url: FORTIOS.Url, Bearer: FORTIOS.Bearer });
      const listed = (await call('GET', '/api/admin/backends')).body;
      expect(listed).not.toContain(FORTIOS.Bearer);
      expect(listed).not.toContain(String(stored.Bearer));
    });

    it.each([
      ['sent back as RECORDED', { Bearer: RECORDED }],
      ['omitted', {}],
      ['sent empty', { Bearer: '' }],
    ])('keeps a stored secret %s', async (_case, secret) => {
      const backend = await createOk({ Name: 'fw', AgentID: agentId, Config: { fortios: FORTIOS } });
      const before = await rawConfig(backend.ID);
      const { Bearer: _bearer, ...rest } = FORTIOS;
      const response = await call('PUT', `/api/admin/backends/${backend.ID}`, {
        ID: backend.ID,
        Name: 'fw renamed',
        AgentID: agentId,
        Config: { fortios: { ...rest, VDOM: 'other', ...secret } },
      });
      expect(response.statusCode, response.body).toBe(200);
      const after = await rawConfig(backend.ID);
      expect(after.Bearer).toBe(before.Bearer);
      expect(after.VDOM).toBe('other');
      const row = await findBackendRow(t.ctx.db, backend.ID);
      expect(loadBackendConfigForAgent(t.ctx, row!).Bearer).toBe(FORTIOS.Bearer);
    });

    it('replaces a secret that was re-entered', async () => {
      const backend = await createOk({ Name: 'fw', AgentID: agentId, Config: { fortios: FORTIOS } });
      const response = await call('PUT', `/api/admin/backends/${backend.ID}`, {
        ID: backend.ID,
        Name: 'fw',
        AgentID: agentId,
        Config: { fortios: { ...FORTIOS, Bearer: 'bearer-secret-2' } },
      });
      expect(response.json<{ data: BackendRecord }>().data.Config.fortios?.Bearer).toBe(RECORDED);
      const row = await findBackendRow(t.ctx.db, backend.ID);
      expect(loadBackendConfigForAgent(t.ctx, row!).Bearer).toBe('bearer-secret-2');
    });

    it('refuses a changed address unless every secret is re-entered', async () => {
      const backend = await createOk({
        Name: 'pan',
        AgentID: agentId,
        Config: { panos: { Hostname: 'pan-a', ApiKey: 'k1' } },
      });
      const update = (fields: object) =>
        call('PUT', `/api/admin/backends/${backend.ID}`, {
          ID: backend.ID,
          Name: 'pan',
          AgentID: agentId,
          Config: { panos: { Hostname: 'pan-b', ...fields } },
        });
      expect(refusal(await update({ ApiKey: RECORDED }))).toEqual({
        status: 400,
        Err: ErrorCodes.reenterCredentials,
        Extra: 'ApiKey',
      });
      expect(refusal(await update({}))).toMatchObject({ Err: ErrorCodes.reenterCredentials });
      expect((await findBackendRow(t.ctx.db, backend.ID))?.config.Hostname).toBe('pan-a');
      expect((await update({ ApiKey: 'k2' })).statusCode).toBe(200);
      const row = await findBackendRow(t.ctx.db, backend.ID);
      expect(loadBackendConfigForAgent(t.ctx, row!)).toMatchObject({ Hostname: 'pan-b', ApiKey: 'k2' });
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
      agentsChanged = [];
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
      agentsChanged = [];

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
