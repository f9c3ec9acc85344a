import { beforeEach, describe, expect, it } from 'vitest';
import { AuditActions, ErrorCodes, type GroupRecord } from '@postern/protocol';
import { useTestApp } from '../test-support/use-test-app.js';
import { givenAdmin, givenKnoc, givenUser } from '../test-support/factories.js';
import { givenAdminSession, givenUserSession } from '../test-support/sessions.js';
import { adminClient, type AdminClient } from '../test-support/admin-client.js';
import { recentAudit } from '../audit/audit.js';

const UNKNOWN_ID = '01890000-0000-7000-8000-000000000000';

describe.each(['sqlite'] as const)('groups API (%s)', (kind) => {
  const t = useTestApp(kind);
  let admin: AdminClient;
  beforeEach(async () => {
    admin = adminClient(t.app, await givenAdminSession(t, await givenAdmin(t.ctx, { userName: 'ops' })));
  });

  const create = (payload: object) => admin.post('/api/admin/groups', payload);
  const createOk = async (payload: object) => {
    const response = await create(payload);
    expect(response.status, response.response.body).toBe(200);
    return (response.body as { data: GroupRecord }).data;
  };

  it('creates a local group with ACLs and members, audits it and shows it in the list and by id', async () => {
    const knoc = await givenKnoc(t.ctx);
    const alice = await givenUser(t.ctx);
    const group = await createOk({
      Name: 'Engineers',
      Description: 'build things',
      Type: 'local',
      ACLIDs: [knoc.id],
      UserIDs: [alice.id, alice.id],
    });

    expect(group).toEqual({
      ID: expect.any(String) as string,
      Name: 'Engineers',
      Description: 'build things',
      Type: 'local',
      ACLIDs: [knoc.id],
      UserIDs: [alice.id],
    });
    expect((await admin.get(`/api/admin/groups/${group.ID}`)).body).toEqual({ data: group });
    expect((await admin.get('/api/admin/groups')).body).toEqual({ data: [group] });
    const [entry] = await recentAudit(t.ctx.db, 1);
    expect(entry?.Entry).toEqual({ [AuditActions.GroupCreated]: { AdminName: 'ops', Description: 'Engineers' } });
  });

  it('lists groups by name with their memberships', async () => {
    const knoc = await givenKnoc(t.ctx);
    await createOk({ Name: 'zeta', Type: 'saml', ACLIDs: [knoc.id] });
    await createOk({ Name: 'alpha', Type: 'dynamic' });
    const list = ((await admin.get('/api/admin/groups')).body as { data: GroupRecord[] }).data;
    expect(list.map((group) => [group.Name, group.Type, group.ACLIDs, group.Description])).toEqual([
      ['alpha', 'dynamic', [], ''],
      ['zeta', 'saml', [knoc.id], ''],
    ]);
  });

  describe('validation', () => {
    it.each([
      ['Name missing', { Type: 'local' }, ErrorCodes.badRequest, /^Name: /],
      ['Name blank', { Name: '   ', Type: 'local' }, ErrorCodes.badRequest, /^Name: /],
      ['Name too long', { Name: 'x'.repeat(201), Type: 'local' }, ErrorCodes.badRequest, /^Name: /],
      ['Type missing', { Name: 'g' }, ErrorCodes.badRequest, /^Type: /],
      ['Type unknown', { Name: 'g', Type: 'ldap' }, ErrorCodes.badRequest, /^Type: /],
      ['ACLIDs not a list', { Name: 'g', Type: 'local', ACLIDs: 'x' }, ErrorCodes.badRequest, /^ACLIDs: /],
      ['UserIDs with a blank id', { Name: 'g', Type: 'local', UserIDs: [''] }, ErrorCodes.badRequest, /^UserIDs\.0: /],
      [
        'Description too long',
        { Name: 'g', Type: 'local', Description: 'd'.repeat(1001) },
        ErrorCodes.badRequest,
        /^Description: /,
      ],
      ['unknown ACL', { Name: 'g', Type: 'local', ACLIDs: [UNKNOWN_ID] }, ErrorCodes.badRequest, /^ACLIDs: unknown /],
      [
        'unknown user',
        { Name: 'g', Type: 'local', UserIDs: [UNKNOWN_ID] },
        ErrorCodes.badRequest,
        /^UserIDs: unknown /,
      ],
    ] as const)('refuses %s', async (_case, payload, code, extra) => {
      const response = await create(payload);
      expect(response.status).toBe(400);
      const body = response.body as { Err: string; Extra: string };
      expect(body.Err).toBe(code);
      expect(body.Extra).toMatch(extra);
    });

    it('names the unknown ids it found', async () => {
      const knoc = await givenKnoc(t.ctx);
      const response = await create({ Name: 'g', Type: 'local', ACLIDs: [knoc.id, UNKNOWN_ID] });
      expect(response.body).toEqual({ Err: ErrorCodes.badRequest, Extra: `ACLIDs: unknown ${UNKNOWN_ID}` });
    });

    it.each(['saml', 'dynamic'] as const)('refuses members for a %s group: they come from SAML', async (type) => {
      const user = await givenUser(t.ctx);
      const response = await create({ Name: 'g', Type: type, UserIDs: [user.id] });
      expect(response.status).toBe(400);
      expect((response.body as { Extra: string }).Extra).toMatch(/^UserIDs: /);
    });

    it('refuses SAML users as members of a local group', async () => {
      const sso = await givenUser(t.ctx, { authType: 'SAML', passwordHash: null });
      const response = await create({ Name: 'g', Type: 'local', UserIDs: [sso.id] });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        Err: ErrorCodes.badRequest,
        Extra: `UserIDs: SAML users cannot be members of local groups (${sso.id})`,
      });
    });

    it.each([
      ['LDAP', { authType: 'LDAP', ldapDn: 'uid=x,dc=example,dc=org', passwordHash: null }],
      ['apikey', { authType: 'apikey', passwordHash: null }],
      ['local', {}],
    ] as const)('accepts %s users in a local group', async (_type, overrides) => {
      const user = await givenUser(t.ctx, overrides);
      const group = await createOk({ Name: 'g', Type: 'local', UserIDs: [user.id] });
      expect(group.UserIDs).toEqual([user.id]);
    });

    it('writes nothing when a request is refused', async () => {
      await create({ Name: 'g', Type: 'local', ACLIDs: [UNKNOWN_ID] });
      expect((await admin.get('/api/admin/groups')).body).toEqual({ data: [] });
      expect((await recentAudit(t.ctx.db, 10)).map((entry) => Object.keys(entry.Entry)[0])).not.toContain(
        AuditActions.GroupCreated,
      );
    });
  });

  it('refuses a second group with the same name with 409 err.groupNameExists', async () => {
    await createOk({ Name: 'Ops', Type: 'local' });
    const response = await create({ Name: ' Ops ', Type: 'saml' });
    expect(response.status).toBe(409);
    expect(response.body).toEqual({ Err: ErrorCodes.groupNameExists, Extra: 'Name' });
  });

  it('gives exactly one of two simultaneous creations of a name, and 409 to the other', async () => {
    const responses = await Promise.all([
      create({ Name: 'Race', Type: 'local' }),
      create({ Name: 'Race', Type: 'local' }),
    ]);
    expect(responses.map((response) => response.status).sort()).toEqual([200, 409]);
    expect(((await admin.get('/api/admin/groups')).body as { data: unknown[] }).data).toHaveLength(1);
  });

  describe('update', () => {
    it('replaces name, description, ACLs and members, and audits it', async () => {
      const [k1, k2, k3] = [await givenKnoc(t.ctx), await givenKnoc(t.ctx), await givenKnoc(t.ctx)];
      const [u1, u2, u3] = [await givenUser(t.ctx), await givenUser(t.ctx), await givenUser(t.ctx)];
      const group = await createOk({ Name: 'before', Type: 'local', ACLIDs: [k1.id, k2.id], UserIDs: [u1.id, u2.id] });

      const response = await admin.put(`/api/admin/groups/${group.ID}`, {
        ID: group.ID,
        Name: 'after',
        Description: 'new',
        Type: 'local',
        ACLIDs: [k3.id],
        UserIDs: [u2.id, u3.id],
      });
      expect(response.status, response.response.body).toBe(200);
      const expected = {
        ID: group.ID,
        Name: 'after',
        Description: 'new',
        Type: 'local',
        ACLIDs: [k3.id],
        UserIDs: [u2.id, u3.id].sort(),
      };
      expect(response.body).toEqual({ data: expected });
      expect((await admin.get(`/api/admin/groups/${group.ID}`)).body).toEqual({ data: expected });
      const [entry] = await recentAudit(t.ctx.db, 1);
      expect(entry?.Entry).toEqual({ [AuditActions.GroupUpdated]: { AdminName: 'ops', Description: 'after' } });
    });

    it('empties the lists when they are sent empty or left out', async () => {
      const knoc = await givenKnoc(t.ctx);
      const user = await givenUser(t.ctx);
      const group = await createOk({ Name: 'g', Type: 'local', ACLIDs: [knoc.id], UserIDs: [user.id] });
      const response = await admin.put(`/api/admin/groups/${group.ID}`, { ID: group.ID, Name: 'g', Type: 'local' });
      expect((response.body as { data: GroupRecord }).data).toMatchObject({ ACLIDs: [], UserIDs: [] });
    });

    it.each([
      ['local', 'saml'],
      ['saml', 'dynamic'],
      ['dynamic', 'local'],
    ] as const)('refuses to change the type from %s to %s (err.groupTypeFixed)', async (from, to) => {
      const group = await createOk({ Name: 'g', Type: from });
      const response = await admin.put(`/api/admin/groups/${group.ID}`, { ID: group.ID, Name: 'g', Type: to });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ Err: ErrorCodes.groupTypeFixed, Extra: 'Type' });
    });

    it('refuses a body ID that differs from the path with err.mismatchingIds', async () => {
      const a = await createOk({ Name: 'a', Type: 'local' });
      const b = await createOk({ Name: 'b', Type: 'local' });
      const response = await admin.put(`/api/admin/groups/${a.ID}`, { ID: b.ID, Name: 'c', Type: 'local' });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ Err: ErrorCodes.mismatchingIds, Extra: 'ID' });
      expect(((await admin.get(`/api/admin/groups/${b.ID}`)).body as { data: GroupRecord }).data.Name).toBe('b');
    });

    it('refuses a rename onto another group name with 409', async () => {
      await createOk({ Name: 'taken', Type: 'local' });
      const group = await createOk({ Name: 'mine', Type: 'local' });
      const response = await admin.put(`/api/admin/groups/${group.ID}`, {
        ID: group.ID,
        Name: 'taken',
        Type: 'local',
      });
      expect(response.status).toBe(409);
      expect(response.body).toEqual({ Err: ErrorCodes.groupNameExists, Extra: 'Name' });
    });

    it('refuses SAML users and unknown ids on update too, keeping the old memberships', async () => {
      const member = await givenUser(t.ctx);
      const sso = await givenUser(t.ctx, { authType: 'SAML', passwordHash: null });
      const group = await createOk({ Name: 'g', Type: 'local', UserIDs: [member.id] });
      for (const payload of [
        { ID: group.ID, Name: 'g', Type: 'local', UserIDs: [sso.id] },
        { ID: group.ID, Name: 'g', Type: 'local', UserIDs: [UNKNOWN_ID] },
        { ID: group.ID, Name: 'g', Type: 'local', ACLIDs: [UNKNOWN_ID] },
      ]) {
        const response = await admin.put(`/api/admin/groups/${group.ID}`, payload);
        expect(response.status).toBe(400);
      }
      expect(((await admin.get(`/api/admin/groups/${group.ID}`)).body as { data: GroupRecord }).data.UserIDs).toEqual([
        member.id,
      ]);
    });

    it('keeps the SAML-given members of a saml group: unchanged or empty UserIDs are fine, others refused', async () => {
      const knoc = await givenKnoc(t.ctx);
      const sso = await givenUser(t.ctx, { authType: 'SAML', passwordHash: null });
      const other = await givenUser(t.ctx);
      const group = await createOk({ Name: 'idp-group', Type: 'saml' });
      await t.ctx.db.insertInto('groupUsers').values({ groupId: group.ID, userId: sso.id }).execute();

      const put = (UserIDs: string[]) =>
        admin.put(`/api/admin/groups/${group.ID}`, {
          ID: group.ID,
          Name: 'idp-group',
          Type: 'saml',
          ACLIDs: [knoc.id],
          UserIDs,
        });
      for (const UserIDs of [[sso.id], []]) {
        const response = await put(UserIDs);
        expect(response.status, response.response.body).toBe(200);
        expect((response.body as { data: GroupRecord }).data).toMatchObject({ ACLIDs: [knoc.id], UserIDs: [sso.id] });
      }
      const changed = await put([sso.id, other.id]);
      expect(changed.status).toBe(400);
      expect((changed.body as { Extra: string }).Extra).toMatch(/^UserIDs: /);
    });
  });

  it('deletes a group and its memberships (not the users or knocs), and audits it', async () => {
    const knoc = await givenKnoc(t.ctx);
    const user = await givenUser(t.ctx);
    const group = await createOk({ Name: 'doomed', Type: 'local', ACLIDs: [knoc.id], UserIDs: [user.id] });
    const response = await admin.delete(`/api/admin/groups/${group.ID}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: null });
    expect((await admin.get(`/api/admin/groups/${group.ID}`)).status).toBe(404);
    expect(await t.ctx.db.selectFrom('groupUsers').selectAll().execute()).toEqual([]);
    expect(await t.ctx.db.selectFrom('groupAcls').selectAll().execute()).toEqual([]);
    expect(await t.ctx.db.selectFrom('users').select('id').where('id', '=', user.id).execute()).toHaveLength(1);
    expect(await t.ctx.db.selectFrom('knocs').select('id').where('id', '=', knoc.id).execute()).toHaveLength(1);
    const [entry] = await recentAudit(t.ctx.db, 1);
    expect(entry?.Entry).toEqual({ [AuditActions.GroupDeleted]: { AdminName: 'ops', Description: 'doomed' } });
  });

  it.each([
    ['GET', `/api/admin/groups/${UNKNOWN_ID}`, undefined],
    ['PUT', `/api/admin/groups/${UNKNOWN_ID}`, { ID: UNKNOWN_ID, Name: 'x', Type: 'local' }],
    ['DELETE', `/api/admin/groups/${UNKNOWN_ID}`, undefined],
  ] as const)('answers %s on an unknown group with 404', async (method, url, payload) => {
    const response = await admin.request(method, url, payload);
    expect(response.status).toBe(404);
    expect((response.body as { Err: string }).Err).toBe(ErrorCodes.notFound);
  });

  it.each([
    ['a malformed JSON body', { method: 'POST', url: '/api/admin/groups', body: '{', json: true }],
    ['a body that is not an object', { method: 'POST', url: '/api/admin/groups', body: '[1]', json: true }],
    ['an id that is too long', { method: 'GET', url: `/api/admin/groups/${'x'.repeat(65)}` }],
    ['a PUT without a body', { method: 'PUT', url: `/api/admin/groups/${UNKNOWN_ID}` }],
  ] as const)('answers %s with 400, never 500', async (_case, request) => {
    const response = await admin.request<{ Err: string }>(
      request.method,
      request.url,
      'body' in request ? request.body : undefined,
      { headers: 'json' in request ? { 'content-type': 'application/json' } : {} },
    );
    expect(response.status).toBe(400);
    expect(response.body.Err).toBe(ErrorCodes.badRequest);
  });

  it.each([
    ['GET', '/api/admin/groups'],
    ['GET', `/api/admin/groups/${UNKNOWN_ID}`],
    ['POST', '/api/admin/groups'],
    ['PUT', `/api/admin/groups/${UNKNOWN_ID}`],
    ['DELETE', `/api/admin/groups/${UNKNOWN_ID}`],
  ] as const)('answers %s %s without an admin session with 401, before looking at the body', async (method, url) => {
    const user = await givenUser(t.ctx);
    const userCookie = await givenUserSession(t, user);
    const userToken = userCookie.split('=')[1] ?? '';
    for (const headers of [
      {},
      { cookie: '__Host-postern_admin_session=forged' },
      { cookie: userCookie },
      { cookie: `__Host-postern_admin_session=${userToken}` },
    ]) {
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
