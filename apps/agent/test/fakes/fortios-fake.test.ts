import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FortiosFake } from './fortios-fake.js';

let fake: FortiosFake;
beforeEach(async () => {
  fake = await FortiosFake.start({ token: 'good', vdoms: ['edge'] });
  fake.addGroup('G', { vdom: 'edge' });
});
afterEach(async () => {
  await fake.close();
});

async function call(method: string, path: string, body?: unknown, token = 'good') {
  const response = await fetch(`${fake.url}/api/v2/cmdb/${path}`, {
    method,
    redirect: 'manual',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text === '' ? null : (JSON.parse(text) as Record<string, unknown>),
  };
}

describe('the FortiOS fake (contract as documented in VENDORS.md 1.1)', () => {
  it('answers 401 to a wrong token', async () => {
    expect((await call('GET', 'firewall/address', undefined, 'bad')).status).toBe(401);
  });

  it('creates objects, refuses duplicates with 500/-5 and absent ones with 404/-3, per VDOM', async () => {
    const name = encodeURIComponent('kk_10.0.0.0/24');
    const created = await call('POST', 'firewall/address?vdom=edge', {
      name: 'kk_10.0.0.0/24',
      type: 'ipmask',
      subnet: '10.0.0.0/24',
    });
    expect(created.status).toBe(200);
    const duplicate = await call('POST', 'firewall/address?vdom=edge', {
      name: 'kk_10.0.0.0/24',
      subnet: '10.0.0.0/24',
    });
    expect([duplicate.status, duplicate.body?.error]).toEqual([500, -5]);
    expect((await call('GET', `firewall/address/${name}?vdom=edge`)).status).toBe(200);
    expect((await call('GET', `firewall/address/${name}`)).status).toBe(404);
    expect((await call('GET', 'firewall/address?vdom=nowhere')).status).toBe(400);

    const added = await call('POST', 'firewall/addrgrp/G/member?vdom=edge', { name: 'kk_10.0.0.0/24' });
    expect(added.status).toBe(200);
    expect((await call('POST', 'firewall/addrgrp/G/member?vdom=edge', { name: 'kk_10.0.0.0/24' })).body?.error).toBe(
      -5,
    );
    expect((await call('GET', `firewall/addrgrp/G/member/${name}?vdom=edge`)).status).toBe(200);
    expect(fake.members('G', { vdom: 'edge' })).toEqual(['none', 'kk_10.0.0.0/24']);
    expect((await call('DELETE', `firewall/addrgrp/G/member/${name}?vdom=edge`)).status).toBe(200);
    const absent = await call('DELETE', `firewall/addrgrp/G/member/${name}?vdom=edge`);
    expect([absent.status, absent.body?.error]).toEqual([404, -3]);
    // The unencoded slash is another path, which does not exist.
    expect((await call('GET', 'firewall/addrgrp/G/member/kk_10.0.0.0/24?vdom=edge')).status).toBe(404);
  });

  it('throttles and redirects on request', async () => {
    fake.throttle(2, 429, '3');
    const first = await call('GET', 'firewall/address');
    expect([first.status, first.headers.get('retry-after')]).toEqual([429, '3']);
    expect((await call('GET', 'firewall/address')).status).toBe(429);
    expect((await call('GET', 'firewall/address')).status).toBe(200);
    fake.redirectTo('http://192.0.2.1:8443');
    const moved = await call('GET', 'firewall/address');
    expect([moved.status, moved.headers.get('location')]).toEqual([
      302,
      'http://192.0.2.1:8443/api/v2/cmdb/firewall/address',
    ]);
  });
});
