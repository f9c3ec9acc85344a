import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SophosUtmFake } from './sophos-utm-fake.js';

let fake: SophosUtmFake;
beforeEach(async () => {
  fake = await SophosUtmFake.start({ apiKey: 'good' });
  fake.addGroup('REF_NetGroPostern', 'postern');
});
afterEach(async () => {
  await fake.close();
});

async function call(method: string, path: string, body?: unknown, options: { key?: string; ack?: boolean } = {}) {
  const response = await fetch(`${fake.url}/api/objects/network/${path}`, {
    method,
    redirect: 'manual',
    headers: {
      authorization: `Basic ${Buffer.from(`token:${options.key ?? 'good'}`).toString('base64')}`,
      'content-type': 'application/json',
      ...(options.ack === true ? { 'x-restd-err-ack': 'all' } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: response.headers.get('content-type') === 'application/json' ? (JSON.parse(text) as unknown) : text,
  };
}

describe('the Sophos UTM fake (contract as documented in VENDORS.md 1.5)', () => {
  it('answers 401 to a wrong token', async () => {
    expect((await fetch(`${fake.url}/api/objects/network/host/`)).status).toBe(401);
    expect((await call('GET', 'host/', undefined, { key: 'bad' })).status).toBe(401);
  });

  it('creates objects with refs, replaces group members, asks before deleting a used object', async () => {
    const created = await call('POST', 'host/', { name: 'kk_192.0.2.1', address: '192.0.2.1' });
    expect(created.status).toBe(201);
    const ref = (created.body as { _ref: string })._ref;
    expect((await call('PATCH', 'group/REF_NetGroPostern', { members: ['REF_nothing'] })).status).toBe(422);
    expect((await call('PATCH', 'group/REF_NetGroPostern', { members: [ref] })).status).toBe(200);
    expect(fake.memberNames('REF_NetGroPostern')).toEqual(['kk_192.0.2.1']);
    expect((await call('DELETE', `host/${ref}`)).status).toBe(422);
    expect((await call('DELETE', `host/${ref}`, undefined, { ack: true })).status).toBe(204);
    expect(fake.members('REF_NetGroPostern')).toEqual([]);
    expect((await call('DELETE', `host/${ref}`, undefined, { ack: true })).status).toBe(404);
    expect((await call('GET', 'group/REF_missing')).status).toBe(404);
  });

  it('PATCH changes only what it names; PUT writes the complete group and needs its name', async () => {
    const ref = ((await call('POST', 'host/', { name: 'kk_192.0.2.1', address: '192.0.2.1' })).body as { _ref: string })
      ._ref;
    expect((await call('PATCH', 'group/REF_NetGroPostern', { comment: 'web' })).status).toBe(200);
    expect((await call('PATCH', 'group/REF_NetGroPostern', { members: [ref] })).body).toMatchObject({
      name: 'postern',
      comment: 'web',
      members: [ref],
    });
    expect((await call('PUT', 'group/REF_NetGroPostern', { members: [] })).status).toBe(422);
    expect(fake.members('REF_NetGroPostern')).toEqual([ref]);
    expect((await call('PUT', 'group/REF_NetGroPostern', { name: 'postern' })).body).toMatchObject({
      name: 'postern',
      comment: '',
      members: [],
    });
  });

  it('empties a group unless told to refuse it', async () => {
    const ref = ((await call('POST', 'host/', { name: 'kk_192.0.2.1', address: '192.0.2.1' })).body as { _ref: string })
      ._ref;
    expect((await call('PATCH', 'group/REF_NetGroPostern', { members: [ref] })).status).toBe(200);
    fake.refuseEmptyGroups();
    const refused = await call('PATCH', 'group/REF_NetGroPostern', { members: [] });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject([{ name: 'The group postern must contain at least one member' }]);
    fake.refuseEmptyGroups(false);
    expect((await call('PATCH', 'group/REF_NetGroPostern', { members: [] })).status).toBe(200);
    expect(fake.members('REF_NetGroPostern')).toEqual([]);
  });

  it('throttles, redirects and refuses on request', async () => {
    fake.throttle(1, 429, '3');
    const first = await call('GET', 'host/');
    expect([first.status, first.headers.get('retry-after')]).toEqual([429, '3']);
    expect((await call('GET', 'host/')).status).toBe(200);
    fake.refuseAddress('192.0.2.9');
    expect((await call('POST', 'host/', { name: 'x', address: '192.0.2.9' })).status).toBe(422);
    fake.redirectTo('http://192.0.2.1:4444');
    const moved = await call('GET', 'host/');
    expect([moved.status, moved.headers.get('location')]).toEqual([
      302,
      'http://192.0.2.1:4444/api/objects/network/host/',
    ]);
  });
});
