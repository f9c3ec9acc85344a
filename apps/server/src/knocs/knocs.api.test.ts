import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditActions, ErrorCodes, RECORDED, type KnocRecord } from '@postern/protocol';
import { createTestApp, testStoreKinds, type TestApp } from '../test-support/test-app.js';
import { givenAdmin, givenUser } from '../test-support/factories.js';
import { agentCapabilities, givenAgent } from '../test-support/agent-factories.js';
import { givenBackend, givenEnforcedKnoc } from '../test-support/knoc-factories.js';
import { givenLicence, TEST_LICENCE_KEYS } from '../test-support/licence.js';
import { signInAdmin } from '../test-support/http.js';
import { recentAudit } from '../audit/audit.js';
import { writeSetting } from '../settings/settings.js';
import type { AgentSync } from '../grants/agent-sync.js';
import { findKnocRow } from './knocs.repo.js';
import { loadKnocConfigForAgent } from './knoc-config.js';

const UNKNOWN_ID = '01890000-0000-7000-8000-000000000000';
const BASE64URL = /^[A-Za-z0-9_-]+$/;

describe.each(testStoreKinds())('knocs API (%s)', (kind) => {
  let t: TestApp;
  let cookie: string;
  let agentsChanged: string[][];
  let agent: { id: string; name: string };
  let sets: { id: string; name: string };
  let published: { id: string; name: string };
  beforeEach(async () => {
    t = await createTestApp(kind, { config: { licencePublicKeys: TEST_LICENCE_KEYS } });
    await givenLicence(t.ctx);
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
    agent = await givenAgent(t.ctx, { name: 'edge', capabilities: agentCapabilities(), version: '1.9.0' });
    sets = await givenBackend(t.ctx, { type: 'ipset', agentId: agent.id, name: 'edge sets' });
    published = await givenBackend(t.ctx, { type: 'allowlist', name: 'published' });
  });
  afterEach(async () => {
    await t.close();
  });

  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({ method, url, headers: { cookie }, ...(payload === undefined ? {} : { payload }) });
  const refusal = (response: Awaited<ReturnType<typeof call>>) => ({
    status: response.statusCode,
    ...response.json<{ Err: string; Extra?: string }>(),
  });
  const ipsetKnoc = (extra: object = {}) => ({
    Description: 'SSH bastion',
    BackendID: sets.id,
    Config: { ipset: { V4SetName: 'postern4' } },
    ...extra,
  });
  const create = (payload: object) => call('POST', '/api/admin/acls', payload);
  const createOk = async (payload: object) => {
    const response = await create(payload);
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ data: { ID: string } }>().data.ID;
  };
  const getOk = async (id: string) => {
    const response = await call('GET', `/api/admin/acls/${id}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ data: KnocRecord }>().data;
  };
  const update = (id: string, payload: object) => call('PUT', `/api/admin/acls/${id}`, { ID: id, ...payload });
  const rawConfig = async (id: string) => {
    const row = await t.ctx.db.selectFrom('knocs').select('config').where('id', '=', id).executeTakeFirstOrThrow();
    return JSON.parse(row.config) as Record<string, Record<string, unknown>>;
  };

  it('creates a knoc, answers its id, audits it, tells its agent and reads back every field', async () => {
    const id = await createOk(
      ipsetKnoc({
        URL: 'https://bastion.example.net',
        Icon: 'terminal',
        ClickToGrant: false,
        CGNATOpen: true,
        AutoBrowseUsers: true,
        MaximumGrantDuration: 3600,
        IpExclusions: { RestrictionType: 'allowList', Ranges: [{ Start: '192.0.2.0', End: '192.0.2.255' }] },
        GrantType: { Type: 'specifiedIps', Ips: [{ Ip: '198.51.100.7' }] },
      }),
    );
    const knoc = await getOk(id);
    expect(knoc).toEqual({
      ID: id,
      Name: 'SSH bastion',
      Description: 'SSH bastion',
      ParentID: null,
      Children: [],
      HideFromAdmins: false,
      HideFromUsers: false,
      URL: 'https://bastion.example.net',
      Category: 'Default',
      Icon: 'terminal',
      ClickToGrant: false,
      CGNATOpen: true,
      MaximumGrantDuration: 3600,
      BackendID: sets.id,
      BackendName: 'edge sets',
      BackendType: 'ipset',
      AgentID: agent.id,
      AgentName: 'edge',
      AutoBrowseUsers: true,
      UserCount: 0,
      GroupCount: 0,
      UserIDs: [],
      GroupIDs: [],
      LastModifiedAt: new Date(t.clock.now()).toISOString(),
      LastModifiedBy: 'ops',
      IpExclusions: {
        RestrictionType: 'allowList',
        RfcType: 'allow',
        Ranges: [{ Start: '192.0.2.0', End: '192.0.2.255' }],
      },
      GrantType: { Type: 'specifiedIps', Ips: [{ Ip: '198.51.100.7' }] },
      Config: { ipset: { V4SetName: 'postern4', V6SetName: '' }, UriToken: expect.stringMatching(BASE64URL) as string },
      AclConfig: { ipset: { V4SetName: 'postern4', V6SetName: '' } },
      BackendConfig: { ipset: {} },
    });
    expect(knoc.Config.UriToken).toHaveLength(32);
    expect((await call('GET', `/api/admin/knocs/${id}`)).json()).toEqual({ data: knoc });
    expect((await call('GET', '/api/admin/acls')).json()).toEqual({ data: [knoc] });
    expect((await call('GET', '/api/admin/knocs')).json()).toEqual({ data: [knoc] });
    const [entry] = await recentAudit(t.ctx.db, 1);
    expect(entry?.Entry).toEqual({ [AuditActions.KnocCreated]: { AdminName: 'ops', AclDescription: 'SSH bastion' } });
    expect(agentsChanged).toEqual([[agent.id]]);
  });

  it('fills the defaults: Category Default, server icon, click to grant, no limit, no restriction', async () => {
    const knoc = await getOk(await createOk(ipsetKnoc({ Category: '', Icon: '' })));
    expect(knoc).toMatchObject({
      Category: 'Default',
      Icon: 'server',
      ClickToGrant: true,
      CGNATOpen: false,
      MaximumGrantDuration: 0,
      IpExclusions: { RestrictionType: 'none', RfcType: 'allow', Ranges: [] },
      GrantType: { Type: 'userIp', Ips: [] },
    });
  });

  describe('validation of the body', () => {
    it.each([
      ['Description missing', { Description: undefined }, ErrorCodes.badRequest],
      ['MaximumGrantDuration not whole minutes', { MaximumGrantDuration: 330 }, ErrorCodes.maximumGrantDurationRange],
      ['MaximumGrantDuration under 5 minutes', { MaximumGrantDuration: 240 }, ErrorCodes.maximumGrantDurationRange],
      [
        'MaximumGrantDuration over 40320 minutes',
        { MaximumGrantDuration: 40_321 * 60 },
        ErrorCodes.maximumGrantDurationRange,
      ],
      ['an ipset knoc without a set name', { Config: { ipset: {} } }, ErrorCodes.ipsetNameRequired],
      [
        'a config naming two types',
        { Config: { ipset: { V4SetName: 'a' }, haproxy: { ID: 1 } } },
        ErrorCodes.noBackendSelected,
      ],
      ['an haproxy knoc without an ID', { Config: { haproxy: {} } }, ErrorCodes.aclIdRequired],
      ['an haproxy ID that is no number', { Config: { haproxy: { ID: 'abc' } } }, ErrorCodes.aclIdMustBeNumber],
      ['a knocproxy knoc without a name', { Config: { knocproxy: { Name: '' } } }, ErrorCodes.aclNameRequired],
      [
        'a knocproxy name with a hyphen',
        { Config: { knocproxy: { Name: 'a-b' } } },
        ErrorCodes.invalidKnocproxyAclName,
      ],
      ['a script name with a space', { Config: { script: { Name: 'a b' } } }, ErrorCodes.invalidAclName],
      [
        'repeated variable names',
        {
          Config: {
            script: {
              EnvVars: [
                { Name: 'A', Value: '1' },
                { Name: 'A', Value: '2' },
              ],
            },
          },
        },
        ErrorCodes.repeatedEnvVarNames,
      ],
      [
        'an empty variable name',
        { Config: { script: { EnvVars: [{ Name: '', Value: '1' }] } } },
        ErrorCodes.emptyEnvVarName,
      ],
      [
        '= in a variable name',
        { Config: { script: { EnvVars: [{ Name: 'A=B', Value: '1' }] } } },
        ErrorCodes.invalidEnvVarName,
      ],
      ['an allow list without ranges', { IpExclusions: { RestrictionType: 'allowList' } }, ErrorCodes.ipRangeRequired],
      [
        'a range with one end',
        { IpExclusions: { RestrictionType: 'denyList', Ranges: [{ Start: '10.0.0.1', End: '' }] } },
        ErrorCodes.invalidIpAddress,
      ],
      [
        'a range end with a leading zero',
        { IpExclusions: { RestrictionType: 'denyList', Ranges: [{ Start: '10.0.0.1', End: '10.0.0.01' }] } },
        ErrorCodes.invalidIpAddress,
      ],
      ['fixed IPs without any', { GrantType: { Type: 'specifiedIps', Ips: [] } }, ErrorCodes.invalidIpAddress],
      [
        'a fixed IP that is none',
        { GrantType: { Type: 'specifiedIps', Ips: [{ Ip: '300.1.1.1' }] } },
        ErrorCodes.invalidIpAddress,
      ],
    ])('refuses %s', async (_case, extra, code) => {
      const response = await create(ipsetKnoc(extra));
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json<{ Err: string }>().Err).toBe(code);
    });

    it.each([0, null, 5 * 60, 40_320 * 60])('accepts MaximumGrantDuration %s', async (seconds) => {
      const knoc = await getOk(await createOk(ipsetKnoc({ MaximumGrantDuration: seconds })));
      expect(knoc.MaximumGrantDuration).toBe(seconds ?? 0);
    });
  });

  describe('the knoc URL is checked when saved', () => {
    it.each([
      ['a javascript: URL', 'javascript:alert(1)', ErrorCodes.urlMustBeHttp],
      ['a URL with credentials', 'https://ops:pw@intranet.example.net', ErrorCodes.urlCredentialsNotAllowed],
      ['a URL with a space in its host', 'https://intranet example.net', ErrorCodes.urlInvalid],
      ['a URL without a host', 'https:///path', ErrorCodes.urlInvalid],
    ])('refuses %s on create and on update', async (_case, URL, code) => {
      expect(refusal(await create(ipsetKnoc({ URL })))).toEqual({ status: 400, Err: code, Extra: 'URL' });
      const id = await createOk(ipsetKnoc({ URL: 'https://intranet.example.net' }));
      expect(refusal(await update(id, ipsetKnoc({ URL })))).toEqual({ status: 400, Err: code, Extra: 'URL' });
      expect((await getOk(id)).URL).toBe('https://intranet.example.net');
    });

    it('still reads a knoc whose URL was stored before the rule', async () => {
      const id = await createOk(ipsetKnoc());
      await t.ctx.db.updateTable('knocs').set({ url: 'rdp://jump host' }).where('id', '=', id).execute();
      expect((await getOk(id)).URL).toBe('rdp://jump host');
      expect((await call('GET', '/api/admin/acls')).statusCode).toBe(200);
    });
  });

  describe('rules of the server', () => {
    it('asks for a backend first when none exists (err.createBackendBeforeACL)', async () => {
      await t.ctx.db.deleteFrom('backends').execute();
      const response = await create(ipsetKnoc({ BackendID: UNKNOWN_ID }));
      expect(refusal(response)).toEqual({
        status: 400,
        Err: ErrorCodes.createBackendBeforeACL,
        Extra: 'BackendID',
      });
    });

    it('refuses an unknown backend (err.noBackendSelected)', async () => {
      const response = await create(ipsetKnoc({ BackendID: UNKNOWN_ID }));
      expect(refusal(response)).toEqual({ status: 400, Err: ErrorCodes.noBackendSelected, Extra: 'BackendID' });
    });

    it('refuses a config of another type than the backend (err.aclConfigMismatch)', async () => {
      const response = await create(ipsetKnoc({ Config: { haproxy: { ID: 7 } } }));
      expect(refusal(response)).toEqual({ status: 400, Err: ErrorCodes.aclConfigMismatch, Extra: 'ipset' });
    });

    it.each([
      ['a set the agent did not report', { V4SetName: 'elsewhere' }, 'elsewhere'],
      ['an IPv6 set named as the IPv4 one', { V4SetName: 'postern6' }, 'postern6'],
      ['an IPv4 set named as the IPv6 one', { V4SetName: 'postern4', V6SetName: 'postern4' }, 'postern4'],
    ])('refuses %s (err.ipsetNotAllowed)', async (_case, fields, name) => {
      const response = await create(ipsetKnoc({ Config: { ipset: fields } }));
      expect(refusal(response)).toEqual({ status: 400, Err: ErrorCodes.ipsetNotAllowed, Extra: name });
    });

    it('accepts both sets the agent reported, each for its family', async () => {
      const knoc = await getOk(
        await createOk(ipsetKnoc({ Config: { ipset: { V4SetName: 'postern4', V6SetName: 'postern6' } } })),
      );
      expect(knoc.AclConfig).toEqual({ ipset: { V4SetName: 'postern4', V6SetName: 'postern6' } });
    });

    it("links a child to a top-level parent and lists it among the parent's children", async () => {
      const parent = await createOk(ipsetKnoc({ Description: 'parent' }));
      const child = await createOk(ipsetKnoc({ Description: 'child', ParentID: parent }));
      expect((await getOk(parent)).Children).toEqual([child]);
      expect((await getOk(child)).ParentID).toBe(parent);
      expect((await getOk(await createOk(ipsetKnoc({ ParentID: '' })))).ParentID).toBeNull();
    });

    it.each(['unknown', 'a child itself', 'itself'])(
      'refuses a parent that is %s (err.invalidParent)',
      async (which) => {
        const parent = await createOk(ipsetKnoc({ Description: 'parent' }));
        const child = await createOk(ipsetKnoc({ Description: 'child', ParentID: parent }));
        const response =
          which === 'unknown'
            ? await create(ipsetKnoc({ ParentID: UNKNOWN_ID }))
            : which === 'a child itself'
              ? await create(ipsetKnoc({ ParentID: child }))
              : await update(parent, ipsetKnoc({ ParentID: parent }));
        expect(refusal(response)).toEqual({ status: 400, Err: ErrorCodes.invalidParent, Extra: 'ParentID' });
      },
    );

    it('refuses to make a knoc with children a child (one level only)', async () => {
      const top = await createOk(ipsetKnoc({ Description: 'top' }));
      const parent = await createOk(ipsetKnoc({ Description: 'parent' }));
      await createOk(ipsetKnoc({ Description: 'child', ParentID: parent }));
      const response = await update(parent, ipsetKnoc({ Description: 'parent', ParentID: top }));
      expect(refusal(response)).toEqual({ status: 400, Err: ErrorCodes.invalidParent, Extra: 'ParentID' });
    });
  });

  describe('allowlist knocs', () => {
    const allowlist = (fields: object, extra: object = {}) => ({
      Description: 'Partner firewall',
      BackendID: published.id,
      Config: { allowlist: fields },
      ...extra,
    });

    it.each([
      ['no key and no access by IP', {}],
      ['access by IP without addresses', { AllowAccessByIp: true, AllowedIpAddresses: [] }],
      ['addresses without access by IP', { AllowAccessByIp: false, AllowedIpAddresses: ['203.0.113.0/24'] }],
    ])('refuses %s (err.allowlistAccessIpRestrictionFormRequired)', async (_case, fields) => {
      const response = await create(allowlist(fields));
      expect(refusal(response)).toEqual({
        status: 400,
        Err: ErrorCodes.allowlistAccessIpRestrictionFormRequired,
        Extra: 'Config.allowlist',
      });
    });

    it('refuses an unknown API key', async () => {
      const response = await create(allowlist({ ApiKeyId: UNKNOWN_ID }));
      expect(refusal(response)).toEqual({
        status: 400,
        Err: ErrorCodes.badRequest,
        Extra: 'Config.allowlist.ApiKeyId: unknown API key',
      });
    });

    it('makes the Token on create and keeps it (and the UriToken) on update, whatever is sent', async () => {
      const id = await createOk(
        allowlist({ Token: 'chosen-by-admin', AllowAccessByIp: true, AllowedIpAddresses: ['203.0.113.0/24'] }),
      );
      const created = await getOk(id);
      const token = (created.AclConfig.allowlist as { Token: string }).Token;
      expect(token).not.toBe('chosen-by-admin');
      expect(token).toMatch(BASE64URL);
      expect(token).toHaveLength(43);
      const response = await update(
        id,
        allowlist(
          { Token: 'another', AllowAccessByIp: true, AllowedIpAddresses: ['198.51.100.0/24'] },
          { Description: 'Renamed' },
        ),
      );
      expect(response.statusCode, response.body).toBe(200);
      const updated = response.json<{ data: KnocRecord }>().data;
      expect(updated.AclConfig).toEqual({
        allowlist: { Token: token, ApiKeyId: '', AllowAccessByIp: true, AllowedIpAddresses: ['198.51.100.0/24'] },
      });
      expect(updated.Config.UriToken).toBe(created.Config.UriToken);
      expect(updated).toMatchObject({ AgentID: '00000000-0000-0000-0000-000000000000', AgentName: '' });
    });
  });

  describe('script variables', () => {
    let scripts: { id: string };
    beforeEach(async () => {
      scripts = await givenBackend(t.ctx, {
        type: 'script',
        agentId: agent.id,
        config: { Command: 'notify.sh', EnvVars: [{ Name: 'DECLARED_SECRET', Sensitive: true }] },
      });
    });
    const scriptKnoc = (envVars: object[]) => ({
      Description: 'Notify',
      BackendID: scripts.id,
      Config: { script: { Name: 'notify', EnvVars: envVars } },
    });

    it('stores sensitive values encrypted, shows them as RECORDED and opens them for the agent', async () => {
      const id = await createOk(
        scriptKnoc([
          { Name: 'PLAIN', Value: 'visible' },
          { Name: 'TOKEN', Value: 'token-secret', Sensitive: true },
          { Name: 'DECLARED_SECRET', Value: 'declared-secret' },
        ]),
      );
      const knoc = await getOk(id);
      expect(knoc.AclConfig).toEqual({
        script: {
          Name: 'notify',
          EnvVars: [
            { Name: 'PLAIN', Value: 'visible', Sensitive: false, Encrypted: false },
            { Name: 'TOKEN', Value: RECORDED, Sensitive: true, Encrypted: true },
            { Name: 'DECLARED_SECRET', Value: RECORDED, Sensitive: true, Encrypted: true },
          ],
        },
      });
      const stored = JSON.stringify(await rawConfig(id));
      expect(stored).not.toContain('token-secret');
      expect(stored).not.toContain('declared-secret');
      expect(JSON.stringify((await call('GET', '/api/admin/acls')).json())).not.toContain('token-secret');
      const row = await findKnocRow(t.ctx.db, id);
      expect(loadKnocConfigForAgent(t.ctx, row!)).toEqual({
        Name: 'notify',
        EnvVars: [
          { Name: 'PLAIN', Value: 'visible', Sensitive: false },
          { Name: 'TOKEN', Value: 'token-secret', Sensitive: true },
          { Name: 'DECLARED_SECRET', Value: 'declared-secret', Sensitive: true },
        ],
      });
    });

    it('keeps a sensitive value sent back as RECORDED or empty, and replaces a new one', async () => {
      const id = await createOk(
        scriptKnoc([
          { Name: 'A', Value: 'secret-a', Sensitive: true },
          { Name: 'B', Value: 'secret-b', Sensitive: true },
          { Name: 'C', Value: 'secret-c', Sensitive: true },
        ]),
      );
      const before = (await rawConfig(id)).script?.EnvVars as { Value: string }[];
      const response = await update(
        id,
        scriptKnoc([
          { Name: 'A', Value: RECORDED, Sensitive: true, Encrypted: true },
          { Name: 'B', Value: '', Sensitive: true, Encrypted: true },
          { Name: 'C', Value: 'secret-c2', Sensitive: true },
        ]),
      );
      expect(response.statusCode, response.body).toBe(200);
      const after = (await rawConfig(id)).script?.EnvVars as { Value: string }[];
      expect(after[0]?.Value).toBe(before[0]?.Value);
      expect(after[1]?.Value).toBe(before[1]?.Value);
      const row = await findKnocRow(t.ctx.db, id);
      expect(loadKnocConfigForAgent(t.ctx, row!).EnvVars).toEqual([
        { Name: 'A', Value: 'secret-a', Sensitive: true },
        { Name: 'B', Value: 'secret-b', Sensitive: true },
        { Name: 'C', Value: 'secret-c2', Sensitive: true },
      ]);
    });

    it('requires a value unless an encrypted one is stored (err.envVarValueRequired)', async () => {
      const response = await create(scriptKnoc([{ Name: 'EMPTY', Value: '' }]));
      expect(refusal(response)).toEqual({ status: 400, Err: ErrorCodes.envVarValueRequired, Extra: 'EMPTY' });
      const id = await createOk(scriptKnoc([{ Name: 'PLAIN', Value: 'x' }]));
      const cleared = await update(id, scriptKnoc([{ Name: 'PLAIN', Value: '' }]));
      expect(refusal(cleared)).toEqual({ status: 400, Err: ErrorCodes.envVarValueRequired, Extra: 'PLAIN' });
      const placeholder = await update(
        id,
        scriptKnoc([{ Name: 'NEW', Value: RECORDED, Sensitive: true, Encrypted: true }]),
      );
      expect(refusal(placeholder)).toEqual({ status: 400, Err: ErrorCodes.envVarValueRequired, Extra: 'NEW' });
    });
  });

  describe('update', () => {
    it('changes the fields, audits KnocUpdated, stamps the modification and tells the agent', async () => {
      const id = await createOk(ipsetKnoc());
      t.clock.advance(60_000);
      agentsChanged = [];
      const response = await update(
        id,
        ipsetKnoc({
          Description: 'SSH jump host',
          MaximumGrantDuration: 7200,
          HideFromUsers: true,
          Config: { ipset: { V6SetName: 'postern6' } },
        }),
      );
      expect(response.statusCode, response.body).toBe(200);
      const knoc = response.json<{ data: KnocRecord }>().data;
      expect(knoc).toMatchObject({
        Name: 'SSH jump host',
        MaximumGrantDuration: 7200,
        HideFromUsers: true,
        AclConfig: { ipset: { V4SetName: '', V6SetName: 'postern6' } },
        LastModifiedAt: new Date(t.clock.now()).toISOString(),
      });
      const [entry] = await recentAudit(t.ctx.db, 1);
      expect(entry?.Entry).toEqual({
        [AuditActions.KnocUpdated]: { AdminName: 'ops', AclDescription: 'SSH jump host' },
      });
      expect(agentsChanged).toEqual([[agent.id]]);
    });

    it('refuses a body whose ID is not the path id (err.mismatchingIds)', async () => {
      const id = await createOk(ipsetKnoc());
      const response = await call('PUT', `/api/admin/acls/${id}`, { ...ipsetKnoc(), ID: UNKNOWN_ID });
      expect(refusal(response)).toEqual({ status: 400, Err: ErrorCodes.mismatchingIds, Extra: 'ID' });
    });

    it('moves to another backend of the same type, never to one of another type', async () => {
      const id = await createOk(ipsetKnoc());
      const other = await givenAgent(t.ctx, { capabilities: agentCapabilities() });
      const otherSets = await givenBackend(t.ctx, { type: 'ipset', agentId: other.id });
      const haproxy = await givenBackend(t.ctx, {
        type: 'haproxy',
        agentId: agent.id,
        config: { Protocol: 'unix', Address: '/run/haproxy.sock' },
      });
      const refused = await update(id, ipsetKnoc({ BackendID: haproxy.id, Config: { haproxy: { ID: 4 } } }));
      expect(refusal(refused)).toEqual({
        status: 400,
        Err: ErrorCodes.backendTypeFixed,
        Extra: 'BackendID: ipset',
      });
      agentsChanged = [];
      const moved = await update(id, ipsetKnoc({ BackendID: otherSets.id }));
      expect(moved.json<{ data: KnocRecord }>().data).toMatchObject({ BackendID: otherSets.id, AgentID: other.id });
      expect(agentsChanged).toEqual([[agent.id, other.id]]);
    });

    it('answers 404 for an unknown knoc', async () => {
      expect((await update(UNKNOWN_ID, ipsetKnoc())).statusCode).toBe(404);
      expect((await call('GET', `/api/admin/acls/${UNKNOWN_ID}`)).statusCode).toBe(404);
    });
  });

  it('lists knocs hidden from admins only when asked for by id', async () => {
    const visible = await createOk(ipsetKnoc({ Description: 'visible' }));
    const hidden = await createOk(ipsetKnoc({ Description: 'hidden', HideFromAdmins: true }));
    for (const path of ['/api/admin/acls', '/api/admin/knocs']) {
      const listed = (await call('GET', path)).json<{ data: KnocRecord[] }>().data;
      expect(listed.map((knoc) => knoc.ID)).toEqual([visible]);
    }
    expect((await getOk(hidden)).HideFromAdmins).toBe(true);
  });

  it('counts the users and groups that hold a knoc directly', async () => {
    const id = await createOk(ipsetKnoc());
    const alice = await givenUser(t.ctx);
    const bob = await givenUser(t.ctx);
    const now = t.clock.now();
    await t.ctx.db
      .insertInto('groups')
      .values({ id: UNKNOWN_ID, name: 'ops', description: '', type: 'local', createdAt: now, updatedAt: now })
      .execute();
    await t.ctx.db
      .insertInto('userAcls')
      .values([
        { userId: alice.id, aclId: id },
        { userId: bob.id, aclId: id },
      ])
      .execute();
    await t.ctx.db.insertInto('groupAcls').values({ groupId: UNKNOWN_ID, aclId: id }).execute();
    expect(await getOk(id)).toMatchObject({
      UserCount: 2,
      GroupCount: 1,
      UserIDs: [alice.id, bob.id].sort(),
      GroupIDs: [UNKNOWN_ID],
    });
  });

  describe('delete', () => {
    it.each(['/api/admin/acls', '/api/admin/knocs'])(
      '%s/{id} deletes the knoc and its children, audited',
      async (base) => {
        const parent = await createOk(ipsetKnoc({ Description: 'parent' }));
        const child = await createOk(ipsetKnoc({ Description: 'child', ParentID: parent, HideFromAdmins: true }));
        const other = await createOk(ipsetKnoc({ Description: 'other' }));
        agentsChanged = [];
        const response = await call('DELETE', `${base}/${parent}`);
        expect(response.statusCode, response.body).toBe(200);
        expect(await t.ctx.db.selectFrom('knocs').select('id').execute()).toEqual([{ id: other }]);
        expect((await call('GET', `${base}/${child}`)).statusCode).toBe(404);
        const audit = (await recentAudit(t.ctx.db, 2)).map((entry) => entry.Entry);
        expect(audit).toEqual([
          { [AuditActions.KnocDeleted]: { AdminName: 'ops', AclDescription: 'child' } },
          { [AuditActions.KnocDeleted]: { AdminName: 'ops', AclDescription: 'parent' } },
        ]);
        expect(agentsChanged).toEqual([[agent.id]]);
        expect((await call('DELETE', `${base}/${parent}`)).statusCode).toBe(404);
      },
    );
  });

  describe('licence', () => {
    beforeEach(async () => {
      await writeSetting(t.ctx.db, 'License', '', t.clock.now());
    });

    it('refuses to create or update a knoc on an unlicensed installation (403 err.licenceRequired)', async () => {
      const existing = await givenEnforcedKnoc(t.ctx, {
        backendId: sets.id,
        type: 'ipset',
        aclConfig: { V4SetName: 'postern4' },
      });
      const attempts = [
        await create(ipsetKnoc()),
        await update(existing.id, ipsetKnoc()),
        await call('POST', '/api/admin/knocs', {
          Backend: { Name: 'new', Config: { allowlist: {} } },
          Knoc: {
            Description: 'x',
            Config: { allowlist: { AllowAccessByIp: true, AllowedIpAddresses: ['10.0.0.0/8'] } },
          },
        }),
        await call('PUT', `/api/admin/knocs/${existing.id}`, {
          Backend: { ID: sets.id, Name: 'edge sets', AgentID: agent.id, Config: { ipset: {} } },
          Knoc: { ID: existing.id, Description: 'x', Config: { ipset: { V4SetName: 'postern4' } } },
        }),
      ];
      for (const response of attempts) {
        expect(refusal(response)).toEqual({ status: 403, Err: ErrorCodes.licenceRequired });
      }
      expect((await call('GET', '/api/admin/acls')).statusCode).toBe(200);
      expect((await call('DELETE', `/api/admin/acls/${existing.id}`)).statusCode).toBe(200);
    });
  });
});
