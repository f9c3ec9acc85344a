import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { AuditActions, ErrorCodes, type ApiKeyRecord } from '@postern/protocol';
import { useTestApp } from '../test-support/use-test-app.js';
import { bothStores } from '../test-support/store-kinds.js';
import { givenAdmin, givenKnoc, givenUser } from '../test-support/factories.js';
import { givenAdminSession, givenUserSession } from '../test-support/sessions.js';
import { adminClient, type AdminClient } from '../test-support/admin-client.js';
import { recentAudit } from '../audit/audit.js';

const UNKNOWN_ID = '01890000-0000-7000-8000-000000000000';
const DAY = 24 * 60 * 60 * 1000;
const ANYWHERE = [
  { Prefix: '0.0.0.0/0', Note: 'Anywhere (IPv4)' },
  { Prefix: '::/0', Note: 'Anywhere (IPv6)' },
];

type Created = ApiKeyRecord & { PlaintextKey: string };

describe.each(bothStores())('API keys API (%s)', (kind) => {
  const t = useTestApp(kind);
  let admin: AdminClient;
  beforeEach(async () => {
    admin = adminClient(t.app, await givenAdminSession(t, await givenAdmin(t.ctx, { userName: 'ops' })));
  });

  const iso = (offsetMs: number) => new Date(t.clock.now() + offsetMs).toISOString();
  const create = (payload: object) => admin.post('/api/admin/api-keys', payload);
  const createOk = async (payload: object) => {
    const response = await create(payload);
    expect(response.status, response.response.body).toBe(200);
    return (response.body as { data: Created }).data;
  };
  const update = (id: string, payload: object) => admin.put(`/api/admin/api-keys/${id}`, payload);

  it('creates a key, shows its plaintext once, and stores only its SHA-256', async () => {
    const knoc = await givenKnoc(t.ctx);
    const user = await givenUser(t.ctx);
    const created = await createOk({
      Name: 'Firewall poller',
      Scopes: [`allowlist.read:${knoc.id}`, 'agent.register', 'user.sessions', `user.auth:${user.id}`],
      AllowedFrom: [{ Prefix: '192.0.2.0/24', Note: 'office' }],
      ExpiredAfter: iso(365 * DAY),
    });

    expect(created.PlaintextKey).toMatch(/^pst_[A-Za-z0-9_-]{43}$/);
    const { PlaintextKey, ...record } = created;
    expect(record).toEqual({
      ID: expect.any(String) as string,
      Name: 'Firewall poller',
      Scopes: [`allowlist.read:${knoc.id}`, 'agent.register', 'user.sessions', `user.auth:${user.id}`],
      Resources: [knoc.id, user.id],
      AllowedFrom: [{ Prefix: '192.0.2.0/24', Note: 'office' }],
      ExpiredAfter: iso(365 * DAY),
      CreatedAt: iso(0),
      LastUsedAt: null,
    });

    const rows = await t.ctx.db.selectFrom('apiKeys').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.keyHash).toBe(createHash('sha256').update(PlaintextKey).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(PlaintextKey);
    expect(JSON.stringify(rows)).not.toContain(PlaintextKey.slice(4));

    const list = await admin.get('/api/admin/api-keys');
    const one = await admin.get(`/api/admin/api-keys/${record.ID}`);
    expect(list.body).toEqual({ data: [record] });
    expect(one.body).toEqual({ data: record });
    const audit = await recentAudit(t.ctx.db, 100);
    for (const text of [list.response.body, one.response.body, JSON.stringify(audit)])
      expect(text).not.toContain(PlaintextKey.slice(4));
    expect(audit[0]?.Entry).toEqual({
      [AuditActions.ApiKeyCreated]: { AdminName: 'ops', Description: 'Firewall poller' },
    });
  });

  it('gives every key its own plaintext', async () => {
    const a = await createOk({ Name: 'a', Scopes: ['agent.register'] });
    const b = await createOk({ Name: 'b', Scopes: ['agent.register'] });
    expect(a.PlaintextKey).not.toBe(b.PlaintextKey);
  });

  it('makes a key without ExpiredAfter never expire and one without AllowedFrom usable from anywhere', async () => {
    const created = await createOk({ Name: 'forever', Scopes: ['user.sessions'] });
    expect(created.ExpiredAfter).toBeNull();
    expect(created.AllowedFrom).toEqual(ANYWHERE);
    const explicitEmpty = await createOk({ Name: 'empty', Scopes: ['user.sessions'], AllowedFrom: [] });
    expect(explicitEmpty.AllowedFrom).toEqual(ANYWHERE);
  });

  it('accepts the console’s 12- and 24-month expiries', async () => {
    const now = new Date(t.clock.now());
    for (const months of [12, 24]) {
      const at = new Date(now);
      at.setUTCMonth(at.getUTCMonth() + months);
      const created = await createOk({ Name: `k${months}`, Scopes: ['user.sessions'], ExpiredAfter: at.toISOString() });
      expect(created.ExpiredAfter).toBe(at.toISOString());
    }
  });

  describe('validation', () => {
    it.each([
      ['Name missing', { Scopes: ['agent.register'] }, ErrorCodes.badRequest, /^Name: /],
      ['Name blank', { Name: ' ', Scopes: ['agent.register'] }, ErrorCodes.badRequest, /^Name: /],
      ['Scopes missing', { Name: 'k' }, ErrorCodes.badRequest, /^Scopes: /],
      ['Scopes empty', { Name: 'k', Scopes: [] }, ErrorCodes.badRequest, /^Scopes: /],
      ['unknown scope', { Name: 'k', Scopes: ['admin.everything'] }, ErrorCodes.invalidScope, /^Scopes\.0$/],
      ['scope without its id', { Name: 'k', Scopes: ['allowlist.read:'] }, ErrorCodes.invalidScope, /^Scopes\.0$/],
      ['scope with a bad id', { Name: 'k', Scopes: ['user.auth:../x'] }, ErrorCodes.invalidScope, /^Scopes\.0$/],
      ['scope with padding', { Name: 'k', Scopes: [' agent.register'] }, ErrorCodes.invalidScope, /^Scopes\.0$/],
      [
        'allowlist scope naming no knoc',
        { Name: 'k', Scopes: [`allowlist.read:${UNKNOWN_ID}`] },
        ErrorCodes.invalidScope,
        new RegExp(`^allowlist\\.read:${UNKNOWN_ID}$`),
      ],
      [
        'user scope naming no user',
        { Name: 'k', Scopes: ['agent.register', `user.auth:${UNKNOWN_ID}`] },
        ErrorCodes.invalidScope,
        new RegExp(`^user\\.auth:${UNKNOWN_ID}$`),
      ],
      [
        'CIDR without a mask',
        { Name: 'k', Scopes: ['agent.register'], AllowedFrom: [{ Prefix: '10.0.0.1', Note: 'n' }] },
        ErrorCodes.invalidCidr,
        /^AllowedFrom\.0\.Prefix$/,
      ],
      [
        'IPv4 mask over 32',
        { Name: 'k', Scopes: ['agent.register'], AllowedFrom: [{ Prefix: '10.0.0.0/33', Note: 'n' }] },
        ErrorCodes.invalidCidr,
        /^AllowedFrom\.0\.Prefix$/,
      ],
      [
        'IPv6 mask over 128',
        { Name: 'k', Scopes: ['agent.register'], AllowedFrom: [{ Prefix: '::/129', Note: 'n' }] },
        ErrorCodes.invalidCidr,
        /^AllowedFrom\.0\.Prefix$/,
      ],
      [
        'not an address',
        { Name: 'k', Scopes: ['agent.register'], AllowedFrom: [{ Prefix: 'office/8', Note: 'n' }] },
        ErrorCodes.invalidCidr,
        /^AllowedFrom\.0\.Prefix$/,
      ],
      [
        'leading zeros',
        { Name: 'k', Scopes: ['agent.register'], AllowedFrom: [{ Prefix: '010.0.0.0/8', Note: 'n' }] },
        ErrorCodes.invalidCidr,
        /^AllowedFrom\.0\.Prefix$/,
      ],
      [
        'entry without a note',
        { Name: 'k', Scopes: ['agent.register'], AllowedFrom: [{ Prefix: '10.0.0.0/8', Note: '' }] },
        ErrorCodes.badRequest,
        /^AllowedFrom\.0\.Note: /,
      ],
      [
        'entry without a prefix',
        { Name: 'k', Scopes: ['agent.register'], AllowedFrom: [{ Note: 'n' }] },
        ErrorCodes.badRequest,
        /^AllowedFrom\.0\.Prefix: /,
      ],
      [
        'expiry not a date',
        { Name: 'k', Scopes: ['agent.register'], ExpiredAfter: 'next year' },
        ErrorCodes.badRequest,
        /^ExpiredAfter: /,
      ],
      [
        'expiry without an offset',
        { Name: 'k', Scopes: ['agent.register'], ExpiredAfter: '2027-11-22T09:00:00' },
        ErrorCodes.badRequest,
        /^ExpiredAfter: /,
      ],
    ] as const)('refuses %s', async (_case, payload, code, extra) => {
      const response = await create(payload);
      expect(response.status).toBe(400);
      const body = response.body as { Err: string; Extra: string };
      expect(body.Err).toBe(code);
      expect(body.Extra).toMatch(extra);
      expect(await t.ctx.db.selectFrom('apiKeys').selectAll().execute()).toEqual([]);
    });

    it.each([
      ['now', 0, 'ExpiredAfter: must be in the future'],
      ['in the past', -DAY, 'ExpiredAfter: must be in the future'],
      ['26 months ahead', 26 * 31 * DAY, 'ExpiredAfter: at most 25 months ahead'],
    ])('refuses an expiry %s', async (_case, offset, extra) => {
      const response = await create({ Name: 'k', Scopes: ['agent.register'], ExpiredAfter: iso(offset) });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ Err: ErrorCodes.badRequest, Extra: extra });
    });

    it('accepts IPv4 and IPv6 CIDRs, and scopes naming existing knocs and users', async () => {
      const knoc = await givenKnoc(t.ctx);
      const created = await createOk({
        Name: 'k',
        Scopes: [`allowlist.read:${knoc.id}`],
        AllowedFrom: [
          { Prefix: '10.0.0.0/8', Note: 'a' },
          { Prefix: '2001:db8::/32', Note: 'b' },
          { Prefix: ' 192.0.2.1/32 ', Note: 'c' },
        ],
      });
      expect(created.AllowedFrom.map((entry) => entry.Prefix)).toEqual(['10.0.0.0/8', '2001:db8::/32', '192.0.2.1/32']);
    });
  });

  it('refuses a second key with the same name with 409 err.apiKeyNameExists', async () => {
    await createOk({ Name: 'poller', Scopes: ['agent.register'] });
    const response = await create({ Name: 'poller ', Scopes: ['user.sessions'] });
    expect(response.status).toBe(409);
    expect(response.body).toEqual({ Err: ErrorCodes.apiKeyNameExists, Extra: 'Name' });
  });

  it('gives exactly one of two simultaneous creations of a name, and 409 to the other', async () => {
    const responses = await Promise.all([
      create({ Name: 'race', Scopes: ['agent.register'] }),
      create({ Name: 'race', Scopes: ['agent.register'] }),
    ]);
    expect(responses.map((response) => response.status).sort()).toEqual([200, 409]);
  });

  describe('update', () => {
    it('changes AllowedFrom, accepting the other fields sent back unchanged, and audits it', async () => {
      const created = await createOk({
        Name: 'k',
        Scopes: ['agent.register', 'user.sessions'],
        ExpiredAfter: iso(DAY),
      });
      const { PlaintextKey: _plaintext, ...record } = created;
      const response = await update(record.ID, {
        ID: record.ID,
        Name: 'k',
        Scopes: ['user.sessions', 'agent.register'],
        ExpiredAfter: record.ExpiredAfter,
        AllowedFrom: [{ Prefix: '198.51.100.0/24', Note: 'branch' }],
      });
      expect(response.status, response.response.body).toBe(200);
      const expected = { ...record, AllowedFrom: [{ Prefix: '198.51.100.0/24', Note: 'branch' }] };
      expect(response.body).toEqual({ data: expected });
      expect((await admin.get(`/api/admin/api-keys/${record.ID}`)).body).toEqual({ data: expected });
      expect(response.response.body).not.toContain('PlaintextKey');
      const [entry] = await recentAudit(t.ctx.db, 1);
      expect(entry?.Entry).toEqual({ [AuditActions.ApiKeyUpdated]: { AdminName: 'ops', Description: 'k' } });
    });

    it('accepts a body with only ID and AllowedFrom', async () => {
      const created = await createOk({ Name: 'k', Scopes: ['agent.register'] });
      const response = await update(created.ID, { ID: created.ID, AllowedFrom: [] });
      expect(response.status).toBe(200);
      expect((response.body as { data: ApiKeyRecord }).data.AllowedFrom).toEqual([]);
    });

    it.each([
      ['Name', { Name: 'renamed' }],
      ['Scopes', { Scopes: ['agent.register', 'user.sessions'] }],
      ['Scopes', { Scopes: ['user.sessions'] }],
      ['Scopes', { Scopes: [] }],
      ['ExpiredAfter', { ExpiredAfter: null }],
      ['ExpiredAfter', { ExpiredAfter: '2030-01-01T00:00:00.000Z' }],
    ])('refuses a change of %s with err.apiKeyFieldFixed', async (field, change) => {
      const created = await createOk({ Name: 'k', Scopes: ['agent.register'], ExpiredAfter: iso(DAY) });
      const response = await update(created.ID, { ID: created.ID, AllowedFrom: ANYWHERE, ...change });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ Err: ErrorCodes.apiKeyFieldFixed, Extra: field });
      expect(
        ((await admin.get(`/api/admin/api-keys/${created.ID}`)).body as { data: ApiKeyRecord }).data,
      ).toMatchObject({
        Name: 'k',
        Scopes: ['agent.register'],
        ExpiredAfter: iso(DAY),
      });
    });

    it('refuses giving a never-expiring key an expiry', async () => {
      const created = await createOk({ Name: 'k', Scopes: ['agent.register'] });
      const response = await update(created.ID, { ID: created.ID, AllowedFrom: [], ExpiredAfter: iso(DAY) });
      expect(response.body).toEqual({ Err: ErrorCodes.apiKeyFieldFixed, Extra: 'ExpiredAfter' });
    });

    it('refuses a body ID that differs from the path with err.mismatchingIds', async () => {
      const a = await createOk({ Name: 'a', Scopes: ['agent.register'] });
      const b = await createOk({ Name: 'b', Scopes: ['agent.register'] });
      const response = await update(a.ID, { ID: b.ID, AllowedFrom: [] });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ Err: ErrorCodes.mismatchingIds, Extra: 'ID' });
    });

    it('refuses an invalid CIDR with err.invalidCidr', async () => {
      const created = await createOk({ Name: 'k', Scopes: ['agent.register'] });
      const response = await update(created.ID, {
        ID: created.ID,
        AllowedFrom: [{ Prefix: '300.0.0.0/8', Note: 'x' }],
      });
      expect(response.body).toEqual({ Err: ErrorCodes.invalidCidr, Extra: 'AllowedFrom.0.Prefix' });
    });
  });

  it('deletes a key and audits it with its name', async () => {
    const created = await createOk({ Name: 'gone', Scopes: ['agent.register'] });
    const response = await admin.delete(`/api/admin/api-keys/${created.ID}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: null });
    expect(await t.ctx.db.selectFrom('apiKeys').selectAll().execute()).toEqual([]);
    const [entry] = await recentAudit(t.ctx.db, 1);
    expect(entry?.Entry).toEqual({ [AuditActions.ApiKeyDeleted]: { AdminName: 'ops', Description: 'gone' } });
  });

  it.each([
    ['GET', `/api/admin/api-keys/${UNKNOWN_ID}`, undefined],
    ['PUT', `/api/admin/api-keys/${UNKNOWN_ID}`, { ID: UNKNOWN_ID, AllowedFrom: [] }],
    ['DELETE', `/api/admin/api-keys/${UNKNOWN_ID}`, undefined],
  ] as const)('answers %s on an unknown key with 404', async (method, url, payload) => {
    const response = await admin.request(method, url, payload);
    expect(response.status).toBe(404);
    expect((response.body as { Err: string }).Err).toBe(ErrorCodes.notFound);
  });

  it.each([
    ['a malformed JSON body', 'POST', '/api/admin/api-keys', '{"Name":'],
    ['a string body', 'POST', '/api/admin/api-keys', '"key"'],
    ['Scopes of the wrong type', 'POST', '/api/admin/api-keys', '{"Name":"k","Scopes":[1]}'],
    ['AllowedFrom missing on update', 'PUT', `/api/admin/api-keys/${UNKNOWN_ID}`, `{"ID":"${UNKNOWN_ID}"}`],
    ['an id over 64 characters', 'GET', `/api/admin/api-keys/${'9'.repeat(65)}`, undefined],
  ] as const)('answers %s with 400, never 500', async (_case, method, url, body) => {
    const response = await admin.request(method, url, body, { headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
  });

  it.each([
    ['GET', '/api/admin/api-keys'],
    ['GET', `/api/admin/api-keys/${UNKNOWN_ID}`],
    ['POST', '/api/admin/api-keys'],
    ['PUT', `/api/admin/api-keys/${UNKNOWN_ID}`],
    ['DELETE', `/api/admin/api-keys/${UNKNOWN_ID}`],
  ] as const)('answers %s %s without an admin session with 401, before looking at the body', async (method, url) => {
    const user = await givenUser(t.ctx);
    const userCookie = await givenUserSession(t, user);
    for (const headers of [{}, { cookie: '__Host-postern_admin_session=forged' }, { cookie: userCookie }]) {
      const response = await t.app.inject({
        method,
        url,
        headers,
        ...(method === 'GET' ? {} : { payload: { junk: 1 } }),
      });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ Err: ErrorCodes.invalidSession });
    }
  });
});
