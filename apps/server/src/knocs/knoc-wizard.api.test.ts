import { beforeEach, describe, expect, it } from 'vitest';
import { AuditActions, ErrorCodes, RECORDED, type KnocRecord } from '@postern/protocol';
import { type TestApp } from '../test-support/test-app.js';
import { givenUser } from '../test-support/factories.js';
import { UNKNOWN_ID } from '../test-support/admin-api-world.js';
import {
  useKnocWizardWorld,
  WIZARD_PUBLIC_URL as PUBLIC_URL,
  type KnocWizardWorld,
} from '../test-support/knoc-api-fixtures.js';
import { recentAudit } from '../audit/audit.js';
import { hashApiKey } from '../apikeys/apikeys.service.js';

const IP_RESTRICTION = { AllowAccessByIp: true, AllowedIpAddresses: ['203.0.113.0/24'] };

// Creating a knoc with the wizard; updating one: knoc-wizard-update.api.test.ts.
describe.each(['sqlite'] as const)('knoc wizard API (%s)', (kind) => {
  const world = useKnocWizardWorld(kind);
  const {
    agentsChanged,
    call,
    refusal,
    createOk,
    givenGroup,
    givenApiKey,
    scopesOf,
    snapshot,
    linux,
    passive,
    passivePlus,
  } = world;
  let t: TestApp;
  let agent: KnocWizardWorld['agent'];
  beforeEach(() => {
    ({ t, agent } = world);
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
        agentsChanged.length = 0;

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
});
