import { beforeEach, describe, expect, it } from 'vitest';
import { AuditActions, ErrorCodes, type KnocRecord } from '@postern/protocol';
import { type TestApp } from '../test-support/test-app.js';
import { bothStores } from '../test-support/store-kinds.js';
import { givenUser } from '../test-support/factories.js';
import { agentCapabilities, givenAgent } from '../test-support/agent-factories.js';
import { givenBackend, givenEnforcedKnoc } from '../test-support/knoc-factories.js';
import { UNKNOWN_ID } from '../test-support/admin-api-world.js';
import { BASE64URL, useKnocsApiWorld, type KnocsApiWorld } from '../test-support/knoc-api-fixtures.js';
import { recentAudit } from '../audit/audit.js';
import { writeSetting } from '../settings/settings.js';

// Creating, reading, updating and deleting knocs; what may be saved: knocs-validation.api.test.ts
// and knocs-type-config.api.test.ts.
describe.each(bothStores())('knocs API (%s)', (kind) => {
  const world = useKnocsApiWorld(kind);
  const { agentsChanged, call, refusal, ipsetKnoc, create, createOk, getOk, update } = world;
  let t: TestApp;
  let agent: KnocsApiWorld['agent'];
  let sets: KnocsApiWorld['sets'];
  beforeEach(() => {
    ({ t, agent, sets } = world);
  });

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

  describe('update', () => {
    it('changes the fields, audits KnocUpdated, stamps the modification and tells the agent', async () => {
      const id = await createOk(ipsetKnoc());
      t.clock.advance(60_000);
      agentsChanged.length = 0;
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
      agentsChanged.length = 0;
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
        agentsChanged.length = 0;
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
