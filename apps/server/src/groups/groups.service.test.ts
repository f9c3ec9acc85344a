import { describe, expect, it } from 'vitest';
import { AuditActions } from '@postern/protocol';
import { useTestApp } from '../test-support/use-test-app.js';
import { bothStores } from '../test-support/store-kinds.js';
import { givenKnoc, givenUser } from '../test-support/factories.js';
import { recentAudit } from '../audit/audit.js';
import { uuidv7 } from '../lib/ids.js';
import { aclIdsGrantedToUser, createGroup, groupIdsOfUser, syncSamlGroupsOfUser } from './groups.service.js';

describe.each(bothStores())('group memberships for other features (%s)', (kind) => {
  const t = useTestApp(kind);

  const group = (
    Name: string,
    Type: 'local' | 'saml' | 'dynamic',
    extra: { ACLIDs?: string[]; UserIDs?: string[] } = {},
  ) => createGroup(t.ctx, { AdminName: 'ops' }, { Name, Type, Description: '', ACLIDs: [], UserIDs: [], ...extra });
  const sync = (userId: string, names: string[]) =>
    t.ctx.db.transaction().execute((trx) => syncSamlGroupsOfUser(trx, userId, names, t.clock.now()));
  const groupsByName = async () =>
    Object.fromEntries(
      (await t.ctx.db.selectFrom('groups').select(['name', 'type', 'description']).execute()).map((row) => [
        row.name,
        { type: row.type, description: row.description },
      ]),
    );

  describe('syncSamlGroupsOfUser', () => {
    it('creates the groups nobody defined as dynamic groups, audited, and makes the user a member', async () => {
      const sso = await givenUser(t.ctx, { authType: 'SAML', passwordHash: null });
      const ids = await sync(sso.id, ['eng', 'ops', 'eng', '  ', ' ops ']);

      expect(ids).toHaveLength(2);
      expect(await groupsByName()).toEqual({
        eng: { type: 'dynamic', description: '' },
        ops: { type: 'dynamic', description: '' },
      });
      expect((await groupIdsOfUser(t.ctx.db, sso.id)).sort()).toEqual([...ids].sort());
      const created = (await recentAudit(t.ctx.db, 10)).filter((entry) => AuditActions.GroupCreated in entry.Entry);
      expect(created.map((entry) => entry.Entry[AuditActions.GroupCreated]?.Description).sort()).toEqual([
        'eng',
        'ops',
      ]);
    });

    it('uses existing saml groups and keeps membership to exactly the groups named', async () => {
      const sso = await givenUser(t.ctx, { authType: 'SAML', passwordHash: null });
      const admins = await group('admins', 'saml');
      const eng = await group('eng', 'saml');
      expect(await sync(sso.id, ['admins', 'eng'])).toEqual([admins.ID, eng.ID].sort());

      const next = await sync(sso.id, ['eng', 'new-team']);
      const newTeam = (
        await t.ctx.db.selectFrom('groups').select('id').where('name', '=', 'new-team').executeTakeFirstOrThrow()
      ).id;
      expect(next).toEqual([eng.ID, newTeam].sort());
      expect((await groupIdsOfUser(t.ctx.db, sso.id)).sort()).toEqual([eng.ID, newTeam].sort());

      expect(await sync(sso.id, [])).toEqual([]);
      expect(await groupIdsOfUser(t.ctx.db, sso.id)).toEqual([]);
      // The groups themselves stay; only the membership goes.
      expect(Object.keys(await groupsByName()).sort()).toEqual(['admins', 'eng', 'new-team']);
    });

    it('never touches local groups: not joined when named, not left when absent', async () => {
      const sso = await givenUser(t.ctx, { authType: 'SAML', passwordHash: null });
      const named = await group('named-local', 'local');
      const existing = await group('existing-local', 'local');
      // A membership set up some other way (say, before the account became a SAML account).
      await t.ctx.db.insertInto('groupUsers').values({ groupId: existing.ID, userId: sso.id }).execute();

      const ids = await sync(sso.id, ['named-local']);
      expect(ids).toEqual([]);
      expect(await groupIdsOfUser(t.ctx.db, sso.id)).toEqual([existing.ID]);
      expect((await groupsByName())['named-local']).toEqual({ type: 'local', description: '' });
      expect(await t.ctx.db.selectFrom('groupUsers').selectAll().where('groupId', '=', named.ID).execute()).toEqual([]);
    });

    it('leaves other users’ memberships alone', async () => {
      const a = await givenUser(t.ctx, { authType: 'SAML', passwordHash: null });
      const b = await givenUser(t.ctx, { authType: 'SAML', passwordHash: null });
      const [shared] = await sync(a.id, ['shared']);
      await sync(b.id, ['shared']);
      await sync(a.id, []);
      expect(await groupIdsOfUser(t.ctx.db, b.id)).toEqual([shared]);
    });

    it('is safe when two sign-ins create the same group at once', async () => {
      const a = await givenUser(t.ctx, { authType: 'SAML', passwordHash: null });
      const b = await givenUser(t.ctx, { authType: 'SAML', passwordHash: null });
      const [idsA, idsB] = await Promise.all([sync(a.id, ['race']), sync(b.id, ['race'])]);
      expect(idsA).toEqual(idsB);
      expect(Object.keys(await groupsByName())).toEqual(['race']);
    });

    it('rolls back with the sign-in transaction it runs in', async () => {
      const sso = await givenUser(t.ctx, { authType: 'SAML', passwordHash: null });
      await expect(
        t.ctx.db.transaction().execute(async (trx) => {
          await syncSamlGroupsOfUser(trx, sso.id, ['ghost'], t.clock.now());
          throw new Error('sign-in failed later');
        }),
      ).rejects.toThrow('sign-in failed later');
      expect(await groupsByName()).toEqual({});
    });
  });

  it('aclIdsGrantedToUser joins direct ACLs and the ACLs of every group, without repeats', async () => {
    const [direct, viaLocal, viaSaml, both, unrelated] = [
      await givenKnoc(t.ctx),
      await givenKnoc(t.ctx),
      await givenKnoc(t.ctx),
      await givenKnoc(t.ctx),
      await givenKnoc(t.ctx),
    ];
    const user = await givenUser(t.ctx, { authType: 'SAML', passwordHash: null });
    const other = await givenUser(t.ctx);
    await t.ctx.db
      .insertInto('userAcls')
      .values([
        { userId: user.id, aclId: direct.id },
        { userId: user.id, aclId: both.id },
        { userId: other.id, aclId: unrelated.id },
      ])
      .execute();
    await group('saml-group', 'saml', { ACLIDs: [viaSaml.id, both.id] });
    await group('local-group', 'local', { ACLIDs: [viaLocal.id], UserIDs: [other.id] });
    await sync(user.id, ['saml-group']);
    const local = await t.ctx.db
      .selectFrom('groups')
      .select('id')
      .where('name', '=', 'local-group')
      .executeTakeFirstOrThrow();
    await t.ctx.db.insertInto('groupUsers').values({ groupId: local.id, userId: user.id }).execute();

    expect(await aclIdsGrantedToUser(t.ctx.db, user.id)).toEqual([direct.id, viaLocal.id, viaSaml.id, both.id].sort());
    expect(await aclIdsGrantedToUser(t.ctx.db, other.id)).toEqual([viaLocal.id, unrelated.id].sort());
    expect(await aclIdsGrantedToUser(t.ctx.db, uuidv7())).toEqual([]);
  });
});
