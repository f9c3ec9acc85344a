import { beforeEach, describe, expect, it } from 'vitest';
import { AuditActions, ErrorCodes, GrantStatus, RECORDED, type KnocRecord } from '@postern/protocol';
import { type TestApp } from '../test-support/test-app.js';
import { givenUser } from '../test-support/factories.js';
import { UNKNOWN_ID } from '../test-support/admin-api-world.js';
import { useKnocWizardWorld, type KnocWizardWorld, type WizardAnswer } from '../test-support/knoc-api-fixtures.js';
import { recentAudit } from '../audit/audit.js';
import { uuidv7 } from '../lib/ids.js';

// Updating a knoc with the wizard's body: its backend, the knoc and the memberships at once.
describe.each(['sqlite'] as const)('knoc wizard API (%s)', (kind) => {
  const world = useKnocWizardWorld(kind);
  const { agentsChanged, call, refusal, createOk, givenGroup, snapshot, linux, passivePlus } = world;
  let t: TestApp;
  let agent: KnocWizardWorld['agent'];
  beforeEach(() => {
    ({ t, agent } = world);
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
      agentsChanged.length = 0;
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
