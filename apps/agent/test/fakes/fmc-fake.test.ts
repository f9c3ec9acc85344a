import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FmcFake } from './fmc-fake.js';

let fake: FmcFake;
let now = 1_000_000;
beforeEach(async () => {
  now = 1_000_000;
  fake = await FmcFake.start({ username: 'api', password: 'pw', now: () => now });
  fake.addDynamicObject('dyn-1', 'postern-ssh', ['198.51.100.1']);
});
afterEach(async () => {
  await fake.close();
});

async function call(method: string, path: string, headers: Record<string, string> = {}, body?: unknown) {
  const response = await fetch(`${fake.url}${path}`, {
    method,
    redirect: 'manual',
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text === '' ? null : (JSON.parse(text) as unknown),
  };
}

const basic = (user: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
});

async function login() {
  const response = await call('POST', '/api/fmc_platform/v1/auth/generatetoken', basic('api', 'pw'));
  expect(response.status).toBe(204);
  return {
    access: response.headers.get('x-auth-access-token') ?? '',
    refresh: response.headers.get('x-auth-refresh-token') ?? '',
    domain: response.headers.get('domain_uuid') ?? '',
  };
}

describe('the FMC fake (contract as documented in VENDORS.md 1.4)', () => {
  it('logs in with Basic auth and answers 401 "Access token invalid" once the token expires', async () => {
    expect((await call('POST', '/api/fmc_platform/v1/auth/generatetoken', basic('api', 'wrong'))).status).toBe(401);
    const tokens = await login();
    expect(tokens.domain).toBe(fake.domainUuid);
    const path = `/api/fmc_config/v1/domain/${tokens.domain}/object/dynamicobjects/dyn-1`;
    expect((await call('GET', path, { 'x-auth-access-token': tokens.access })).status).toBe(200);
    now += 30 * 60_000;
    const expired = await call('GET', path, { 'x-auth-access-token': tokens.access });
    expect(expired.status).toBe(401);
    expect(JSON.stringify(expired.body)).toContain('Access token invalid');
  });

  it('refreshes at most 3 times per login', async () => {
    const tokens = await login();
    let access = tokens.access;
    for (let i = 0; i < 3; i++) {
      const refreshed = await call('POST', '/api/fmc_platform/v1/auth/refreshtoken', {
        'x-auth-access-token': access,
        'x-auth-refresh-token': tokens.refresh,
      });
      expect(refreshed.status).toBe(204);
      access = refreshed.headers.get('x-auth-access-token') ?? '';
    }
    const fourth = await call('POST', '/api/fmc_platform/v1/auth/refreshtoken', {
      'x-auth-access-token': access,
      'x-auth-refresh-token': tokens.refresh,
    });
    expect(fourth.status).toBe(401);
    expect([fake.logins, fake.refreshes]).toEqual([1, 3]);
  });

  it('adds and removes dynamic object mappings in bulk, pages them, refuses a bad batch whole', async () => {
    const { access, domain } = await login();
    const auth = { 'x-auth-access-token': access };
    const base = `/api/fmc_config/v1/domain/${domain}/object`;
    const add = await call('POST', `${base}/dynamicobjectmappings`, auth, {
      add: [{ dynamicObject: { id: 'dyn-1' }, mappings: ['192.0.2.1', '10.0.0.0/8', '192.0.2.1'] }],
    });
    expect(add.status).toBe(201);
    expect(fake.mappings('dyn-1')).toEqual(['198.51.100.1', '192.0.2.1', '10.0.0.0/8']);
    const bad = await call('POST', `${base}/dynamicobjectmappings`, auth, {
      add: [{ dynamicObject: { id: 'dyn-1' }, mappings: ['192.0.2.9', 'nope'] }],
    });
    expect(bad.status).toBe(400);
    expect(fake.mappings('dyn-1')).toHaveLength(3);
    const page = await call('GET', `${base}/dynamicobjects/dyn-1/mappings?offset=1&limit=1`, auth);
    expect(page.body).toEqual({
      items: [{ mapping: '192.0.2.1' }],
      paging: { offset: 1, limit: 1, count: 3, pages: 3 },
    });
    await call('POST', `${base}/dynamicobjectmappings`, auth, {
      remove: [{ dynamicObject: { id: 'dyn-1' }, mappings: ['192.0.2.1', '203.0.113.99'] }],
    });
    expect(fake.mappings('dyn-1')).toEqual(['198.51.100.1', '10.0.0.0/8']);
  });

  it('network groups: read-only fields and an empty group are refused, objects are references', async () => {
    fake.addNetworkGroup('grp-1', 'postern-web', ['192.0.2.200'], ['dev-1']);
    const { access, domain } = await login();
    const auth = { 'x-auth-access-token': access };
    const base = `/api/fmc_config/v1/domain/${domain}`;
    const group = (await call('GET', `${base}/object/networkgroups/grp-1`, auth)).body as Record<string, unknown>;
    expect(Object.keys(group)).toEqual(expect.arrayContaining(['links', 'metadata']));
    // Sent back whole, as read: refused for its read-only fields.
    const whole = await call('PUT', `${base}/object/networkgroups/grp-1`, auth, group);
    expect([whole.status, JSON.stringify(whole.body)]).toEqual([400, expect.stringContaining('links, metadata')]);
    const host = await call('POST', `${base}/object/hosts`, auth, {
      name: 'kk_192.0.2.7',
      type: 'Host',
      value: '192.0.2.7',
    });
    expect(host.status).toBe(201);
    const duplicate = await call('POST', `${base}/object/hosts`, auth, {
      name: 'kk_192.0.2.7',
      type: 'Host',
      value: '192.0.2.8',
    });
    expect([duplicate.status, JSON.stringify(duplicate.body)]).toEqual([
      400,
      expect.stringContaining('Duplicate Name'),
    ]);
    const id = (host.body as { id: string }).id;
    const writable = {
      id: 'grp-1',
      name: 'postern-web',
      type: 'NetworkGroup',
      literals: [],
      objects: [{ type: 'Host', id }],
    };
    expect((await call('PUT', `${base}/object/networkgroups/grp-1`, auth, writable)).status).toBe(200);
    expect(fake.groupObjects('grp-1')).toEqual([{ name: 'kk_192.0.2.7', value: '192.0.2.7' }]);
    expect(fake.pendingDevices()).toEqual(['dev-1']);
    const empty = await call('PUT', `${base}/object/networkgroups/grp-1`, auth, { ...writable, objects: [] });
    expect(empty.status).toBe(400);
    const listed = await call('GET', `${base}/object/hosts?filter=nameOrValue:KK_&expanded=true`, auth);
    expect((listed.body as { items: unknown[] }).items).toEqual([
      expect.objectContaining({ name: 'kk_192.0.2.7', value: '192.0.2.7' }),
    ]);
  });

  it('counts the changes waiting on a device, all or by user, until it is deployed', async () => {
    fake.addNetworkGroup('grp-1', 'postern-web', ['192.0.2.200'], ['dev-1']);
    fake.addPendingChange('dev-1', 'alice');
    fake.addPendingChange('dev-1', 'api');
    const { access, domain } = await login();
    const auth = { 'x-auth-access-token': access };
    const base = `/api/fmc_config/v1/domain/${domain}/deployment`;
    const count = async (filter: string) =>
      (
        (await call('GET', `${base}/deployabledevices/dev-1/pendingchanges?expanded=true${filter}`, auth)).body as {
          paging: { count: number };
        }
      ).paging.count;
    expect([await count(''), await count('&filter=UserList:api'), await count('&filter=UserList:bob')]).toEqual([
      2, 1, 0,
    ]);
    expect((await call('POST', `${base}/deploymentrequests`, auth, { deviceList: ['dev-1'] })).status).toBe(202);
    expect([fake.pendingDevices(), await count('')]).toEqual([[], 0]);
  });

  it('lists every domain in DOMAINS and refuses a config call under another one', async () => {
    await fake.close();
    fake = await FmcFake.start({
      username: 'api',
      password: 'pw',
      domains: [{ name: 'Global/Branch', uuid: 'branch-1' }],
    });
    const response = await call('POST', '/api/fmc_platform/v1/auth/generatetoken', basic('api', 'pw'));
    expect(JSON.parse(response.headers.get('domains') ?? '[]')).toEqual([
      { name: 'Global', uuid: fake.domainUuid },
      { name: 'Global/Branch', uuid: 'branch-1' },
    ]);
    const auth = { 'x-auth-access-token': response.headers.get('x-auth-access-token') ?? '' };
    expect((await call('GET', '/api/fmc_config/v1/domain/branch-1/object/hosts', auth)).status).toBe(200);
    expect((await call('GET', '/api/fmc_config/v1/domain/other/object/hosts', auth)).status).toBe(400);
  });

  it('throttles with 429 (next N calls and per minute) and redirects on request', async () => {
    fake.throttle(1);
    expect((await call('POST', '/api/fmc_platform/v1/auth/generatetoken', basic('api', 'pw'))).status).toBe(429);
    expect((await call('POST', '/api/fmc_platform/v1/auth/generatetoken', basic('api', 'pw'))).status).toBe(204);
    fake.rateLimit(2);
    expect((await call('GET', '/x')).status).toBe(429);
    now += 60_001;
    expect((await call('GET', '/x')).status).toBe(401);
    fake.redirectTo('http://192.0.2.1:8443');
    const moved = await call('GET', '/api/fmc_platform/v1/auth/generatetoken');
    expect([moved.status, moved.headers.get('location')]).toEqual([
      302,
      'http://192.0.2.1:8443/api/fmc_platform/v1/auth/generatetoken',
    ]);
  });
});
