import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditActions, ErrorCodes, GrantStatus, RECORDED, type KnocRecord } from '@postern/protocol';
import { createTestApp, testStoreKinds, type TestApp } from '../test-support/test-app.js';
import { givenAdmin, givenUser } from '../test-support/factories.js';
import { agentCapabilities, givenAgent } from '../test-support/agent-factories.js';
import { givenLicence, TEST_LICENCE_KEYS } from '../test-support/licence.js';
import { signInAdmin } from '../test-support/http.js';
import { recentAudit } from '../audit/audit.js';
import { uuidv7 } from '../lib/ids.js';
import type { AgentSync } from '../grants/agent-sync.js';
import { hashApiKey } from '../apikeys/apikeys.service.js';

const UNKNOWN_ID = '01890000-0000-7000-8000-000000000000';
const PUBLIC_URL = 'https://postern.example.net';
const IP_RESTRICTION = { AllowAccessByIp: true, AllowedIpAddresses: ['203.0.113.0/24'] };

interface WizardAnswer {
  KnocID: string;
  ApiKey: { ID: string; Name: string; PlaintextKey: string } | null;
  AllowlistURL: string | null;
  Knoc: KnocRecord;
}

describe.each(testStoreKinds())('knoc wizard API (%s)', (kind) => {
  let t: TestApp;
  let cookie: string;
  let agentsChanged: string[][];
  let agent: { id: string; name: string };
  beforeEach(async () => {
    t = await createTestApp(kind, { config: { licencePublicKeys: TEST_LICENCE_KEYS, publicUrl: PUBLIC_URL } });
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
  const createOk = async (payload: object) => {
    const response = await call('POST', '/api/admin/knocs', payload);
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ data: WizardAnswer }>().data;
  };
  const givenGroup = async (name: string) => {
    const now = t.clock.now();
    const id = uuidv7(now);
    await t.ctx.db
      .insertInto('groups')
      .values({ id, name, description: '', type: 'local', createdAt: now, updatedAt: now })
      .execute();
    return id;
  };
  const givenApiKey = async (name: string, scopes: string[]) => {
    const id = uuidv7(t.clock.now());
    await t.ctx.db
      .insertInto('apiKeys')
      .values({
        id,
        name,
        keyHash: hashApiKey(`key-${id}`),
        scopes: JSON.stringify(scopes),
        allowedFrom: '[]',
        expiresAt: null,
        createdAt: t.clock.now(),
        lastUsedAt: null,
      })
      .execute();
    return id;
  };
  const scopesOf = async (keyId: string) => {
    const row = await t.ctx.db.selectFrom('apiKeys').select('scopes').where('id', '=', keyId).executeTakeFirstOrThrow();
    return JSON.parse(row.scopes) as string[];
  };
  /** Every table the wizard writes, to show a failed run left nothing behind. */
  const snapshot = async () => ({
    backends: await t.ctx.db.selectFrom('backends').selectAll().orderBy('id').execute(),
    knocs: await t.ctx.db.selectFrom('knocs').selectAll().orderBy('id').execute(),
    apiKeys: await t.ctx.db.selectFrom('apiKeys').selectAll().orderBy('id').execute(),
    userAcls: await t.ctx.db.selectFrom('userAcls').selectAll().orderBy('userId').orderBy('aclId').execute(),
    groupAcls: await t.ctx.db.selectFrom('groupAcls').selectAll().orderBy('groupId').orderBy('aclId').execute(),
    audit: await t.ctx.db.selectFrom('auditLog').selectAll().orderBy('id').execute(),
  });
  const linux = (extra: object = {}) => ({
    Backend: { Name: 'edge sets', AgentID: agent.id, Config: { ipset: {} } },
    Knoc: { Description: 'SSH', Config: { ipset: { V4SetName: 'postern4' } } },
    ...extra,
  });
  const passive = (apiKey: object, knocFields: object = {}) => ({
    Backend: { Name: 'published', Config: { allowlist: {} } },
    ApiKey: apiKey,
    Knoc: { Description: 'Partner firewall', Config: { allowlist: knocFields } },
  });
  const passivePlus = (extra: object = {}) => ({
    ...passive({ Option: 'new', Name: 'pan key' }),
    PassivePlus: {
      Backend: {
        Name: 'pan refresh',
        AgentID: agent.id,
        Config: { panos: { Hostname: 'pan.example.net', ApiKey: 'pan-secret' } },
      },
      Config: { panos: { EDLName: 'postern-edl', MapUser: true } },
    },
    ...extra,
  });

  describe('create', () => {
    it('creates the backend, the knoc and the memberships, audits each step and tells the agent', async () => {
      const alice = await givenUser(t.ctx);
      const group = await givenGroup('ops');
      const answer = await createOk(linux({ UserIDs: [alice.id, alice.id], GroupIDs: [group] }));
      expect(answer).toMatchObject({ ApiKey: null, AllowlistURL: null });
      expect(answer.Knoc).toMatchObject({
        ID: answer.KnocID,
        Name: 'SSH',
        BackendName: 'edge sets',
        BackendType: 'ipset',
        AgentID: agent.id,
        UserIDs: [alice.id],
        GroupIDs: [group],
        UserCount: 1,
        GroupCount: 1,
      });
      const audit = (await recentAudit(t.ctx.db, 2)).map((entry) => entry.Entry);
      expect(audit).toEqual([
        { [AuditActions.KnocCreated]: { AdminName: 'ops', AclDescription: 'SSH' } },
        { [AuditActions.BackendCreated]: { AdminName: 'ops', Description: 'edge sets' } },
      ]);
      expect(agentsChanged).toEqual([[agent.id]]);
    });

    it('creates a new API key scoped to the allowlist and shows its plaintext once', async () => {
      const answer = await createOk(
        passive({ Option: 'new', Name: 'partner key', AllowedFrom: [{ Prefix: '203.0.113.0/24', Note: 'partner' }] }),
      );
      expect(answer.ApiKey).toEqual({
        ID: expect.any(String) as string,
        Name: 'partner key',
        PlaintextKey: expect.stringMatching(/^pst_/) as string,
      });
      const key = answer.ApiKey!;
      const row = await t.ctx.db.selectFrom('apiKeys').selectAll().where('id', '=', key.ID).executeTakeFirstOrThrow();
      expect(row.keyHash).toBe(hashApiKey(key.PlaintextKey));
      expect(JSON.stringify(row)).not.toContain(key.PlaintextKey);
      expect(JSON.parse(row.scopes)).toEqual([`allowlist.read:${answer.KnocID}`]);
      const config = answer.Knoc.AclConfig.allowlist as { ApiKeyId: string; Token: string };
      expect(config.ApiKeyId).toBe(key.ID);
      expect(answer.AllowlistURL).toBe(`${PUBLIC_URL}/api/v1/allowlists/${answer.KnocID}/${config.Token}.txt`);
      expect(answer.Knoc).toMatchObject({ AgentID: '00000000-0000-0000-0000-000000000000', BackendType: 'allowlist' });
      const knocRead = (await call('GET', `/api/admin/knocs/${answer.KnocID}`)).body;
      expect(knocRead).not.toContain(key.PlaintextKey);
      const actions = (await recentAudit(t.ctx.db, 3)).map((entry) => Object.keys(entry.Entry)[0]);
      expect(actions).toEqual([AuditActions.ApiKeyCreated, AuditActions.KnocCreated, AuditActions.BackendCreated]);
    });

    it('gives an existing API key the scope of the new allowlist', async () => {
      const keyId = await givenApiKey('shared key', ['user.sessions']);
      const answer = await createOk(passive({ Option: 'existing', ID: keyId }));
      expect(answer.ApiKey).toBeNull();
      expect(await scopesOf(keyId)).toEqual(['user.sessions', `allowlist.read:${answer.KnocID}`]);
      expect((answer.Knoc.AclConfig.allowlist as { ApiKeyId: string }).ApiKeyId).toBe(keyId);
      const [entry] = await recentAudit(t.ctx.db, 1);
      expect(entry?.Entry).toEqual({ [AuditActions.ApiKeyUpdated]: { AdminName: 'ops', Description: 'shared key' } });
    });

    it('publishes without a key when the list is restricted to addresses', async () => {
      const answer = await createOk(passive({ Option: 'none' }, { ...IP_RESTRICTION, ApiKeyId: 'ignored' }));
      expect(answer.ApiKey).toBeNull();
      expect(answer.Knoc.AclConfig.allowlist).toMatchObject({ ApiKeyId: '', ...IP_RESTRICTION });
      expect(answer.AllowlistURL).toMatch(/\/api\/v1\/allowlists\/.+\.txt$/);
    });

    it('creates the passive+ backend and a hidden child knoc under the allowlist', async () => {
      const alice = await givenUser(t.ctx);
      const answer = await createOk(passivePlus({ UserIDs: [alice.id] }));
      const [child] = answer.Knoc.Children;
      expect(child).toBeDefined();
      const childKnoc = (await call('GET', `/api/admin/knocs/${child}`)).json<{ data: KnocRecord }>().data;
      expect(childKnoc).toMatchObject({
        ParentID: answer.KnocID,
        HideFromUsers: true,
        HideFromAdmins: true,
        Description: 'Partner firewall',
        BackendName: 'pan refresh',
        BackendType: 'panos',
        AgentID: agent.id,
        AclConfig: { panos: { EDLName: 'postern-edl', MapUser: true, GroupName: '', SerialNumber: '' } },
        BackendConfig: { panos: { Hostname: 'pan.example.net', ApiKey: RECORDED } },
        UserIDs: [],
      });
      expect(answer.Knoc.UserIDs).toEqual([alice.id]);
      const listed = (await call('GET', '/api/admin/knocs')).json<{ data: KnocRecord[] }>().data;
      expect(listed.map((knoc) => knoc.ID)).toEqual([answer.KnocID]);
      expect(agentsChanged).toEqual([[agent.id]]);
    });

    it('refuses an API key for a knoc that is no allowlist', async () => {
      const response = await call('POST', '/api/admin/knocs', linux({ ApiKey: { Option: 'new', Name: 'k' } }));
      expect(refusal(response)).toEqual({
        status: 400,
        Err: ErrorCodes.badRequest,
        Extra: 'ApiKey: only allowlist knocs are read with an API key',
      });
    });

    it('refuses a knoc config that does not match the backend (err.aclConfigMismatch)', async () => {
      const response = await call(
        'POST',
        '/api/admin/knocs',
        linux({ Knoc: { Description: 'x', Config: { haproxy: { ID: 3 } } } }),
      );
      expect(refusal(response)).toMatchObject({ status: 400, Err: ErrorCodes.aclConfigMismatch });
    });

    describe('all or nothing', () => {
      it.each([
        [
          'an unknown group, after every other step',
          (alice: string) => passivePlus({ UserIDs: [alice], GroupIDs: [UNKNOWN_ID] }),
          400,
        ],
        ['an unknown user', () => passivePlus({ UserIDs: [UNKNOWN_ID] }), 400],
        [
          'a child backend name that is taken',
          () => ({
            ...passivePlus(),
            PassivePlus: {
              ...passivePlus().PassivePlus,
              Backend: { ...passivePlus().PassivePlus.Backend, Name: 'taken' },
            },
          }),
          409,
        ],
        ['a new key name that is taken', () => passive({ Option: 'new', Name: 'taken key' }), 409],
        ['an allowlist without a key or restriction', () => passive({ Option: 'none' }), 400],
        ['an unknown existing key', () => passive({ Option: 'existing', ID: UNKNOWN_ID }), 400],
      ])('leaves nothing behind when it fails on %s', async (_case, body, status) => {
        const alice = await givenUser(t.ctx);
        const group = await givenGroup('ops');
        await givenApiKey('taken key', ['user.sessions']);
        const keyId = await givenApiKey('existing', ['user.sessions']);
        const earlier = await createOk(passive({ Option: 'existing', ID: keyId }, {}));
        await call('PUT', `/api/admin/backends/${earlier.Knoc.BackendID}`, {
          ID: earlier.Knoc.BackendID,
          Name: 'taken',
          Config: { allowlist: {} },
        });
        await t.ctx.db.insertInto('userAcls').values({ userId: alice.id, aclId: earlier.KnocID }).execute();
        await t.ctx.db.insertInto('groupAcls').values({ groupId: group, aclId: earlier.KnocID }).execute();
        const before = await snapshot();
        agentsChanged = [];

        const response = await call('POST', '/api/admin/knocs', body(alice.id));
        expect(response.statusCode, response.body).toBe(status);
        expect(await snapshot()).toEqual(before);
        expect(agentsChanged).toEqual([]);
      });

      it('rolls back the scope given to an existing key', async () => {
        const keyId = await givenApiKey('existing', ['user.sessions']);
        const response = await call('POST', '/api/admin/knocs', {
          ...passive({ Option: 'existing', ID: keyId }),
          GroupIDs: [UNKNOWN_ID],
        });
        expect(response.statusCode).toBe(400);
        expect(await scopesOf(keyId)).toEqual(['user.sessions']);
      });
    });
  });

  describe('addresses are checked when saved', () => {
    it.each([
      [
        "the knoc's URL",
        () =>
          linux({
            Knoc: { Description: 'SSH', URL: 'https://ops:pw@ssh.example.net', Config: { ipset: { V4SetName: 'p4' } } },
          }),
        { Err: ErrorCodes.urlCredentialsNotAllowed, Extra: 'Knoc.URL' },
      ],
      [
        "the backend's Fortinet URL",
        () =>
          linux({
            Backend: { Name: 'fw', AgentID: 'x', Config: { fortios: { Url: 'https://fw .example.net', Bearer: 's' } } },
          }),
        { Err: ErrorCodes.urlInvalid, Extra: 'Backend.Config.fortios.Url' },
      ],
      [
        "the passive+ backend's Hostname",
        () =>
          passivePlus({
            PassivePlus: {
              Backend: {
                Name: 'pan refresh',
                AgentID: 'x',
                Config: { panos: { Hostname: 'pan.example.net/x', ApiKey: 'k' } },
              },
              Config: { panos: { EDLName: 'postern-edl' } },
            },
          }),
        { Err: ErrorCodes.invalidHostname, Extra: 'PassivePlus.Backend.Config.panos.Hostname' },
      ],
    ])('refuses a bad address in %s on create and stores nothing', async (_case, body, expected) => {
      const payload = body();
      const before = await snapshot();
      expect(refusal(await call('POST', '/api/admin/knocs', payload))).toEqual({ status: 400, ...expected });
      expect(await snapshot()).toEqual(before);
    });

    it('refuses a bad Hostname in the backend on update and keeps what is stored', async () => {
      const answer = await createOk(passivePlus());
      const childId = answer.Knoc.Children[0]!;
      const child = (await call('GET', `/api/admin/knocs/${childId}`)).json<{ data: KnocRecord }>().data;
      const before = await snapshot();
      const response = await call('PUT', `/api/admin/knocs/${childId}`, {
        Backend: {
          ID: child.BackendID,
          Name: 'pan refresh',
          AgentID: agent.id,
          Config: { panos: { Hostname: 'ops@pan.example.net', ApiKey: 'k2' } },
        },
        Knoc: { ID: childId, Description: 'Partner firewall', Config: { panos: { EDLName: 'postern-edl' } } },
      });
      expect(refusal(response)).toEqual({
        status: 400,
        Err: ErrorCodes.invalidHostname,
        Extra: 'Backend.Config.panos.Hostname',
      });
      expect(await snapshot()).toEqual(before);
    });
  });

  describe('update', () => {
    const fortiosBackend = (extra: object = {}) => ({
      Name: 'fw',
      AgentID: agent.id,
      Config: { fortios: { Url: 'https://fw.example.net', Bearer: 'fw-secret', ...extra } },
    });
    const givenLinuxKnoc = async (members: { UserIDs?: string[]; GroupIDs?: string[] } = {}) =>
      createOk(linux(members));
    const updateBody = (
      answer: WizardAnswer,
      extra: { Backend?: object; Knoc?: object; UserIDs?: string[]; GroupIDs?: string[] } = {},
    ) => ({
      Backend: {
        ID: answer.Knoc.BackendID,
        Name: 'edge sets',
        AgentID: agent.id,
        Config: { ipset: {} },
        ...extra.Backend,
      },
      Knoc: { ID: answer.KnocID, Description: 'SSH', Config: { ipset: { V4SetName: 'postern4' } }, ...extra.Knoc },
      UserIDs: extra.UserIDs ?? [],
      GroupIDs: extra.GroupIDs ?? [],
    });
    const givenGrant = async (aclId: string, userId: string, ip: string) => {
      const now = t.clock.now();
      const id = uuidv7(now);
      await t.ctx.db
        .insertInto('grants')
        .values({
          id,
          aclId,
          sessionId: null,
          userId,
          userName: userId,
          ip,
          origin: 'user',
          status: GrantStatus.Granted,
          createdAt: now,
          updatedAt: now,
          expiresAt: now + 3_600_000,
          endedAt: null,
          endReason: null,
        })
        .execute();
      return id;
    };
    const grantState = async (id: string) =>
      t.ctx.db.selectFrom('grants').select(['endedAt', 'endReason']).where('id', '=', id).executeTakeFirstOrThrow();

    it('updates the backend, then the knoc, then makes the memberships exactly the lists', async () => {
      const [alice, bob] = [await givenUser(t.ctx), await givenUser(t.ctx)];
      const [ops, dev] = [await givenGroup('ops'), await givenGroup('dev')];
      const answer = await givenLinuxKnoc({ UserIDs: [alice.id, bob.id], GroupIDs: [ops] });
      agentsChanged = [];
      const response = await call(
        'PUT',
        `/api/admin/knocs/${answer.KnocID}`,
        updateBody(answer, {
          Backend: { Name: 'edge sets renamed' },
          Knoc: { Description: 'SSH jump', MaximumGrantDuration: 600 },
          UserIDs: [bob.id],
          GroupIDs: [dev],
        }),
      );
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json<{ data: KnocRecord }>().data).toMatchObject({
        Name: 'SSH jump',
        BackendName: 'edge sets renamed',
        MaximumGrantDuration: 600,
        UserIDs: [bob.id],
        GroupIDs: [dev],
      });
      const audit = (await recentAudit(t.ctx.db, 2)).map((entry) => entry.Entry);
      expect(audit).toEqual([
        { [AuditActions.KnocUpdated]: { AdminName: 'ops', AclDescription: 'SSH jump' } },
        { [AuditActions.BackendUpdated]: { AdminName: 'ops', Description: 'edge sets renamed' } },
      ]);
      expect(agentsChanged).toEqual([[agent.id]]);
    });

    it('ends the grants of users who lost access, and only theirs', async () => {
      const [alice, bob, carol] = [await givenUser(t.ctx), await givenUser(t.ctx), await givenUser(t.ctx)];
      const ops = await givenGroup('ops');
      await t.ctx.db.insertInto('groupUsers').values({ groupId: ops, userId: carol.id }).execute();
      const answer = await givenLinuxKnoc({ UserIDs: [alice.id, bob.id], GroupIDs: [ops] });
      const aliceGrant = await givenGrant(answer.KnocID, alice.id, '192.0.2.1');
      const bobGrant = await givenGrant(answer.KnocID, bob.id, '192.0.2.2');
      const carolGrant = await givenGrant(answer.KnocID, carol.id, '192.0.2.3');
      // Carol keeps access directly although her group loses it; Alice loses it altogether.
      const response = await call(
        'PUT',
        `/api/admin/knocs/${answer.KnocID}`,
        updateBody(answer, { UserIDs: [bob.id, carol.id], GroupIDs: [] }),
      );
      expect(response.statusCode, response.body).toBe(200);
      expect(await grantState(aliceGrant)).toEqual({ endedAt: t.clock.now(), endReason: 'access-removed' });
      expect(await grantState(bobGrant)).toEqual({ endedAt: null, endReason: null });
      expect(await grantState(carolGrant)).toEqual({ endedAt: null, endReason: null });
    });

    it("for a passive+ child: updates the parent first, keeps the child hidden and sets the parent's members", async () => {
      const alice = await givenUser(t.ctx);
      const bob = await givenUser(t.ctx);
      const answer = await createOk(passivePlus({ UserIDs: [alice.id] }));
      const childId = answer.Knoc.Children[0]!;
      const child = (await call('GET', `/api/admin/knocs/${childId}`)).json<{ data: KnocRecord }>().data;
      const aliceGrant = await givenGrant(childId, alice.id, '192.0.2.1');
      const response = await call('PUT', `/api/admin/knocs/${childId}`, {
        Backend: {
          ID: child.BackendID,
          Name: 'pan refresh',
          AgentID: agent.id,
          Config: { panos: { Hostname: 'pan.example.net', ApiKey: RECORDED } },
        },
        Knoc: {
          ID: childId,
          Description: 'Partner firewall v2',
          HideFromUsers: true,
          HideFromAdmins: true,
          ClickToGrant: false,
          Config: { panos: { EDLName: 'postern-edl-2' } },
        },
        UserIDs: [bob.id],
      });
      expect(response.statusCode, response.body).toBe(200);
      const updatedChild = response.json<{ data: KnocRecord }>().data;
      expect(updatedChild).toMatchObject({
        Description: 'Partner firewall v2',
        ParentID: answer.KnocID,
        HideFromUsers: true,
        HideFromAdmins: true,
        AclConfig: { panos: { EDLName: 'postern-edl-2' } },
        UserIDs: [],
      });
      const parent = (await call('GET', `/api/admin/knocs/${answer.KnocID}`)).json<{ data: KnocRecord }>().data;
      expect(parent).toMatchObject({
        Description: 'Partner firewall v2',
        ClickToGrant: false,
        HideFromUsers: false,
        HideFromAdmins: false,
        BackendType: 'allowlist',
        AclConfig: answer.Knoc.AclConfig,
        UserIDs: [bob.id],
      });
      const audit = (await recentAudit(t.ctx.db, 3)).map((entry) => Object.keys(entry.Entry)[0]);
      expect(audit).toEqual([AuditActions.KnocUpdated, AuditActions.KnocUpdated, AuditActions.BackendUpdated]);
      expect((await grantState(aliceGrant)).endReason).toBe('access-removed');
    });

    it('stops at the first failure and leaves everything as it was', async () => {
      const alice = await givenUser(t.ctx);
      const created = await createOk({
        Backend: fortiosBackend(),
        Knoc: { Description: 'Forti', Config: { fortios: { Name: 'postern' } } },
        UserIDs: [alice.id],
      });
      const before = await snapshot();
      const body = (backend: object, userIds: string[]) => ({
        Backend: { ID: created.Knoc.BackendID, ...fortiosBackend(backend) },
        Knoc: { ID: created.KnocID, Description: 'Forti renamed', Config: { fortios: { Name: 'postern' } } },
        UserIDs: userIds,
      });
      const moved = await call(
        'PUT',
        `/api/admin/knocs/${created.KnocID}`,
        body({ Url: 'https://elsewhere.example.net', Bearer: RECORDED }, []),
      );
      expect(refusal(moved)).toEqual({ status: 400, Err: ErrorCodes.reenterCredentials, Extra: 'Bearer' });
      const unknownUser = await call(
        'PUT',
        `/api/admin/knocs/${created.KnocID}`,
        body({ Bearer: RECORDED }, [UNKNOWN_ID]),
      );
      expect(unknownUser.statusCode).toBe(400);
      expect(await snapshot()).toEqual(before);
    });

    it.each([
      ['Knoc.ID differs from the path', 'Knoc.ID'],
      ["Backend.ID is not the knoc's backend", 'Backend.ID'],
    ])('refuses a body whose %s (err.mismatchingIds)', async (_case, field) => {
      const answer = await givenLinuxKnoc();
      const body = updateBody(answer);
      if (field === 'Knoc.ID') body.Knoc.ID = UNKNOWN_ID;
      else body.Backend.ID = UNKNOWN_ID;
      const response = await call('PUT', `/api/admin/knocs/${answer.KnocID}`, body);
      expect(refusal(response)).toEqual({ status: 400, Err: ErrorCodes.mismatchingIds, Extra: field });
    });
  });
});
