import type { AgentKnocOf } from '@postern/protocol';
import { describe, expect, it } from 'vitest';
import { FortiosFake } from '../../../../test/fakes/fortios-fake.js';
import { entry, testDriverOptions, testKnoc, useCleanup } from '../../../../test/support/driver-test-kit.js';
import { selfSignedCertificate } from '@postern/test-support';
import { FortiosDriver } from './fortios-driver.js';

const TOKEN = 'fgt-token-0123456789';
const cleanup = useCleanup();

async function setup(options: { tls?: boolean; vdoms?: string[] } = {}) {
  const fake = await FortiosFake.start({
    token: TOKEN,
    ...(options.tls === true ? { tls: selfSignedCertificate() } : {}),
    ...(options.vdoms === undefined ? {} : { vdoms: options.vdoms }),
  });
  const { options: driverOptions, lines, delays } = testDriverOptions();
  const driver = new FortiosDriver(driverOptions);
  cleanup.push(fake, driver);
  const knoc = (backend: Partial<AgentKnocOf<'fortios'>['backend']> = {}, group = 'postern-ssh') =>
    testKnoc(
      'fortios',
      { Url: fake.url, Bearer: TOKEN, Insecure: false, Prefix: 'kk_', VDOM: '', ...backend },
      { Name: group },
    );
  return { fake, driver, knoc, lines, delays };
}

describe('FortiosDriver', () => {
  it('keeps a group from being empty with the built-in none when the last grant leaves it', async () => {
    const { fake, driver, knoc } = await setup();
    fake.addGroup('postern-ssh', { members: [] });
    expect((await driver.apply(knoc(), [entry('203.0.113.7')]))[0]).toMatchObject({ ok: true });
    expect(fake.members('postern-ssh')).toEqual(['kk_203.0.113.7']);
    expect(await driver.remove(knoc(), [entry('203.0.113.7')])).toEqual([{ ip: '203.0.113.7', ok: true, error: '' }]);
    expect(fake.members('postern-ssh')).toEqual(['none']);
    expect(await driver.list(knoc())).toEqual([]);
    expect((await driver.apply(knoc(), [entry('203.0.113.8')]))[0]).toMatchObject({ ok: true });
    expect(fake.members('postern-ssh')).toEqual(['none', 'kk_203.0.113.8']);
  });

  it('writes prefixed objects into the IPv4 and IPv6 groups of the VDOM, percent-encoding names', async () => {
    const { fake, driver, knoc } = await setup({ vdoms: ['edge'] });
    fake.addGroup('postern-ssh', { vdom: 'edge' });
    fake.addGroup('postern-ssh', { vdom: 'edge', family: 'ipv6' });
    const k = knoc({ VDOM: 'edge' });
    const outcomes = await driver.apply(k, [entry('203.0.113.7'), entry('10.1.0.0/16'), entry('2001:DB8::7')]);
    expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
    expect(fake.members('postern-ssh', { vdom: 'edge' })).toEqual(['none', 'kk_203.0.113.7', 'kk_10.1.0.0/16']);
    expect(fake.members('postern-ssh', { vdom: 'edge', family: 'ipv6' })).toEqual(['none', 'kk_2001:db8::7']);
    expect(fake.address('kk_203.0.113.7', { vdom: 'edge' })).toEqual({
      name: 'kk_203.0.113.7',
      type: 'ipmask',
      subnet: '203.0.113.7/32',
    });
    expect(fake.address('kk_2001:db8::7', { vdom: 'edge', family: 'ipv6' })).toEqual({
      name: 'kk_2001:db8::7',
      ip6: '2001:db8::7/128',
    });
    expect(fake.requests.every((request) => request.vdom === 'edge')).toBe(true);
    expect((await driver.list(k)).sort()).toEqual(['10.1.0.0/16', '2001:db8::7', '203.0.113.7']);
  });

  it('reads what an existing object opens in FortiOS’s own notation, and trusts it only when it is exactly the grant', async () => {
    const { fake, driver, knoc } = await setup();
    fake.addGroup('postern-ssh');
    fake.addGroup('postern-ssh', { family: 'ipv6' });
    // Made by hand before Postern: right (address and netmask, as FortiOS shows a subnet), or not.
    fake.addAddress('kk_203.0.113.7', '203.0.113.7 255.255.255.255');
    fake.addAddress('kk_10.1.0.0/16', '10.1.0.0 255.255.0.0');
    fake.addAddress('kk_2001:db8::7', '2001:db8::7/128', { family: 'ipv6' });
    fake.addAddress('kk_198.51.100.9', '198.51.100.0 255.255.255.0');
    fake.addAddress('kk_198.51.100.10', '198.51.100.10 255.0.255.0');
    fake.addAddress('kk_198.51.100.11', '198.51.100.11 255.255.255.255', { type: 'iprange' });

    const outcomes = await driver.apply(knoc(), [
      entry('203.0.113.7'),
      entry('10.1.0.0/16'),
      entry('2001:db8::7'),
      entry('198.51.100.9'),
      entry('198.51.100.10'),
      entry('198.51.100.11'),
    ]);

    expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, true, true, false, false, false]);
    expect(outcomes[3]?.error).toContain(
      'fortios: address object kk_198.51.100.9 exists but opens 198.51.100.0/24, not 198.51.100.9/32',
    );
    expect(outcomes[4]?.error).toContain('opens something other than one address or network');
    expect(outcomes[5]?.error).toContain('opens something other than one address or network');
    expect(fake.members('postern-ssh')).toEqual(['none', 'kk_203.0.113.7', 'kk_10.1.0.0/16']);
    expect(fake.members('postern-ssh', { family: 'ipv6' })).toEqual(['none', 'kk_2001:db8::7']);
    // Not Postern's to change: the objects stay as they were made.
    expect(fake.address('kk_198.51.100.9')?.subnet).toBe('198.51.100.0 255.255.255.0');
    expect((await driver.list(knoc())).sort()).toEqual(['10.1.0.0/16', '2001:db8::7', '203.0.113.7']);
  });

  it('uses the backend Prefix and leaves objects without it alone', async () => {
    const { fake, driver, knoc } = await setup();
    fake.addGroup('postern-ssh', { members: ['none', 'office-lan', 'kk_198.51.100.1'] });
    const k = knoc({ Prefix: 'pst_' });
    expect((await driver.apply(k, [entry('198.51.100.2')]))[0]?.ok).toBe(true);
    expect(await driver.list(k)).toEqual(['198.51.100.2']);
    await driver.flush(k);
    expect(fake.members('postern-ssh')).toEqual(['none', 'office-lan', 'kk_198.51.100.1']);
  });

  it('a missing group fails its entries with a clear reason; an empty Prefix is refused', async () => {
    const { fake, driver, knoc } = await setup();
    fake.addGroup('postern-ssh');
    const [v6] = await driver.apply(knoc(), [entry('2001:db8::1')]);
    expect(v6?.error).toBe(
      'fortios: address group postern-ssh does not exist as an IPv6 group (addrgrp6) on the FortiGate',
    );
    await expect(driver.apply(knoc({ Prefix: '  ' }), [entry('192.0.2.1')])).rejects.toThrow(
      /Prefix must not be empty/,
    );
  });

  it('waits out throttling (429 with Retry-After, 503) and then applies', async () => {
    const { fake, driver, knoc, delays } = await setup();
    fake.addGroup('postern-ssh');
    fake.throttle(2, 429, '7');
    expect((await driver.apply(knoc(), [entry('192.0.2.10')]))[0]).toEqual({ ip: '192.0.2.10', ok: true, error: '' });
    expect(delays).toEqual([50, 50]);
    fake.throttle(1, 503);
    expect((await driver.apply(knoc(), [entry('192.0.2.11')]))[0]?.ok).toBe(true);
    expect(fake.members('postern-ssh')).toEqual(['none', 'kk_192.0.2.10', 'kk_192.0.2.11']);
  });

  it('verifies the certificate unless the backend says Insecure', async () => {
    const { fake, driver, knoc } = await setup({ tls: true });
    fake.addGroup('postern-ssh');
    await expect(driver.list(knoc())).rejects.toThrow(/TLS: .*self.signed/i);
    expect(await driver.list(knoc({ Insecure: true }))).toEqual([]);
  });

  it('serialises writes to one group: concurrent applies of one address create it once', async () => {
    const { fake, driver, knoc } = await setup();
    fake.addGroup('postern-ssh');
    const results = await Promise.all([1, 2, 3].map(() => driver.apply(knoc(), [entry('192.0.2.20')])));
    expect(results.flat().every((outcome) => outcome.ok)).toBe(true);
    expect(fake.requests.filter((request) => request.method === 'POST')).toHaveLength(2);
    expect(fake.members('postern-ssh')).toEqual(['none', 'kk_192.0.2.20']);
  });

  it('uses a new Bearer token as soon as the backend config carries it', async () => {
    const { fake, driver, knoc } = await setup();
    fake.addGroup('postern-ssh');
    expect(await driver.list(knoc())).toEqual([]);
    fake.token = 'rotated-token-abcdef';
    await expect(driver.list(knoc())).rejects.toThrow(/refused the API token \(HTTP 401\)/);
    expect((await driver.apply(knoc({ Bearer: 'rotated-token-abcdef' }), [entry('192.0.2.30')]))[0]?.ok).toBe(true);
  });
});
