import type { AgentKnocOf } from '@postern/protocol';
import { describe, expect, it } from 'vitest';
import { SophosUtmFake } from '../../../../test/fakes/sophos-utm-fake.js';
import { entry, testDriverOptions, testKnoc, useCleanup } from '../../../../test/support/driver-test-kit.js';
import { selfSignedCertificate } from '@postern/test-support';
import { SophosUtmDriver } from './sophosutm-driver.js';

const KEY = 'utm-token-0123456789';
const tls = selfSignedCertificate();
const cleanup = useCleanup();

async function setup() {
  const fake = await SophosUtmFake.start({ apiKey: KEY, tls });
  const { options: driverOptions, lines, delays } = testDriverOptions();
  const driver = new SophosUtmDriver(driverOptions);
  cleanup.push(fake, driver);
  const knoc = (group = 'REF_NetGroSsh', backend: Partial<AgentKnocOf<'sophosutm'>['backend']> = {}) =>
    testKnoc(
      'sophosutm',
      { Hostname: fake.hostname, Insecure: true, ApiKey: KEY, ...backend },
      { GroupReference: group },
    );
  return { fake, driver, knoc, lines, delays };
}

describe('SophosUtmDriver', () => {
  it('writes host and network objects of both families into the group with one member write', async () => {
    const { fake, driver, knoc } = await setup();
    fake.addGroup('REF_NetGroSsh', 'ssh');
    const outcomes = await driver.apply(knoc(), [entry('203.0.113.7'), entry('10.1.0.0/16'), entry('2001:DB8::7')]);
    expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
    expect(fake.memberNames('REF_NetGroSsh')).toEqual(['kk_203.0.113.7', 'kk_10.1.0.0/16', 'kk_2001:db8::7']);
    expect(
      fake.objects().map(({ _type, name, address, address6, netmask }) => [_type, name, address, address6, netmask]),
    ).toEqual([
      ['network/host', 'kk_203.0.113.7', '203.0.113.7', '::', undefined],
      ['network/network', 'kk_10.1.0.0/16', '10.1.0.0', '::', 16],
      ['network/host', 'kk_2001:db8::7', '0.0.0.0', '2001:db8::7', undefined],
    ]);
    expect(fake.requests.filter((request) => request.method === 'PATCH')).toHaveLength(1);
    expect((await driver.list(knoc())).sort()).toEqual(['10.1.0.0/16', '2001:db8::7', '203.0.113.7']);
  });

  it('serialises read-modify-write: concurrent grants on one group all land, each object made once', async () => {
    const { fake, driver, knoc } = await setup();
    fake.addGroup('REF_NetGroSsh', 'ssh');
    const ips = ['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.1'];
    const results = await Promise.all(ips.map((ip) => driver.apply(knoc(), [entry(ip)])));
    expect(results.flat().every((outcome) => outcome.ok)).toBe(true);
    expect(fake.memberNames('REF_NetGroSsh').sort()).toEqual(['kk_192.0.2.1', 'kk_192.0.2.2', 'kk_192.0.2.3']);
    expect(fake.objects()).toHaveLength(3);
  });

  it('reuses an object by name, and deletes it on remove only when no other group holds it', async () => {
    const { fake, driver, knoc } = await setup();
    fake.addGroup('REF_NetGroSsh', 'ssh');
    fake.addGroup('REF_NetGroWeb', 'web');
    expect((await driver.apply(knoc(), [entry('192.0.2.9')]))[0]?.ok).toBe(true);
    expect((await driver.apply(knoc('REF_NetGroWeb'), [entry('192.0.2.9')]))[0]?.ok).toBe(true);
    expect(fake.objects()).toHaveLength(1);
    expect((await driver.remove(knoc(), [entry('192.0.2.9')]))[0]?.ok).toBe(true);
    expect(fake.members('REF_NetGroSsh')).toEqual([]);
    expect(fake.memberNames('REF_NetGroWeb')).toEqual(['kk_192.0.2.9']);
    expect((await driver.remove(knoc('REF_NetGroWeb'), [entry('192.0.2.9')]))[0]?.ok).toBe(true);
    expect(fake.objects()).toEqual([]);
    expect(fake.requests.filter((request) => request.method === 'DELETE').every((request) => request.ack)).toBe(true);
  });

  it('a missing group fails its entries with a clear reason; throttling is waited out', async () => {
    const { fake, driver, knoc, delays } = await setup();
    expect((await driver.apply(knoc('REF_nope'), [entry('192.0.2.1')]))[0]?.error).toMatch(
      /network group REF_nope does not exist on the UTM/,
    );
    fake.addGroup('REF_NetGroSsh', 'ssh');
    fake.throttle(2, 429, '7');
    expect((await driver.apply(knoc(), [entry('192.0.2.10')]))[0]).toEqual({ ip: '192.0.2.10', ok: true, error: '' });
    expect(delays).toEqual([50, 50]);
  });

  it('verifies the certificate unless the backend says Insecure', async () => {
    const { fake, driver, knoc } = await setup();
    fake.addGroup('REF_NetGroSsh', 'ssh');
    await expect(driver.list(knoc('REF_NetGroSsh', { Insecure: false }))).rejects.toThrow(/TLS: .*self.signed/i);
    expect(await driver.list(knoc())).toEqual([]);
  });
});
