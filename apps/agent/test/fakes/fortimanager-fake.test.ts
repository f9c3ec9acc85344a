import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FortimanagerFake } from './fortimanager-fake.js';

let fake: FortimanagerFake;
beforeEach(async () => {
  fake = await FortimanagerFake.start({ apiKey: 'good' });
  fake.addGroup('G');
  fake.addPackage('default', ['FGT-1']);
});
afterEach(async () => {
  await fake.close();
});

async function rpc(method: string, params: unknown[], key = 'good') {
  const response = await fetch(`${fake.url}/jsonrpc`, {
    method: 'POST',
    redirect: 'manual',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: 1, method, params }),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    result:
      text === ''
        ? []
        : ((JSON.parse(text) as { result?: { status: { code: number }; data?: unknown }[] }).result ?? []),
  };
}

const ADDRESS = '/pm/config/adom/root/obj/firewall/address';
const MEMBER = '/pm/config/adom/root/obj/firewall/addrgrp/G/member';

describe('the FortiManager fake (contract as documented in VENDORS.md 1.2)', () => {
  it('answers 401 to a wrong key and one result per param', async () => {
    expect((await rpc('get', [{ url: ADDRESS }], 'bad')).status).toBe(401);
    const both = await rpc('add', [
      { url: ADDRESS, data: { name: 'kk_192.0.2.1', subnet: ['192.0.2.1', '255.255.255.255'] } },
      { url: ADDRESS, data: { name: 'kk_192.0.2.1', subnet: ['192.0.2.1', '255.255.255.255'] } },
      { url: ADDRESS, data: { name: 'kk_bad', subnet: ['nope', '255.255.255.255'] } },
    ]);
    expect(both.result.map((r) => r.status.code)).toEqual([0, -2, -10]);
  });

  it('adds and deletes members without overwriting, and leaves the ADOM dirty until installed', async () => {
    await rpc('add', [{ url: ADDRESS, data: { name: 'kk_10.0.0.0/24', subnet: ['10.0.0.0', '255.255.255.0'] } }]);
    expect((await rpc('add', [{ url: MEMBER, data: ['kk_10.0.0.0/24'] }])).result[0]?.status.code).toBe(0);
    expect((await rpc('add', [{ url: MEMBER, data: ['kk_missing'] }])).result[0]?.status.code).toBe(-3);
    const group = await rpc('get', [{ url: '/pm/config/adom/root/obj/firewall/addrgrp/G' }]);
    expect(group.result[0]?.data).toEqual({ name: 'G', member: ['none', 'kk_10.0.0.0/24'] });
    expect(fake.dirty()).toBe(true);
    const started = await rpc('exec', [
      { url: '/securityconsole/install/package', data: { adom: 'root', pkg: 'default', scope: [] } },
    ]);
    const task = (started.result[0]?.data as { task: number }).task;
    const polled = await rpc('get', [{ url: `/task/task/${task}` }]);
    expect(polled.result[0]?.data).toMatchObject({ percent: 100, num_err: 0 });
    expect(fake.dirty()).toBe(false);
    expect((await rpc('delete', [{ url: MEMBER, data: ['kk_10.0.0.0/24'] }])).result[0]?.status.code).toBe(0);
    expect(fake.members('G')).toEqual(['none']);
  });

  it('needs the workspace lock in workspace mode and refuses it while an admin holds it', async () => {
    fake.workspaceMode = true;
    const add = { url: ADDRESS, data: { name: 'kk_192.0.2.2', subnet: ['192.0.2.2', '255.255.255.255'] } };
    expect((await rpc('add', [add])).result[0]?.status.code).toBe(-20055);
    fake.lockedBy = 'admin';
    expect((await rpc('exec', [{ url: '/dvmdb/adom/root/workspace/lock' }])).result[0]?.status.code).toBe(-20055);
    fake.lockedBy = null;
    expect((await rpc('exec', [{ url: '/dvmdb/adom/root/workspace/lock' }])).result[0]?.status.code).toBe(0);
    expect((await rpc('add', [add])).result[0]?.status.code).toBe(0);
  });

  it('throttles and redirects on request', async () => {
    fake.throttle(1, '4');
    const throttled = await rpc('get', [{ url: ADDRESS }]);
    expect([throttled.status, throttled.headers.get('retry-after')]).toEqual([429, '4']);
    fake.redirectTo('http://192.0.2.1:8443');
    const moved = await rpc('get', [{ url: ADDRESS }]);
    expect([moved.status, moved.headers.get('location')]).toEqual([302, 'http://192.0.2.1:8443/jsonrpc']);
  });
});
